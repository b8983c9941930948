#!/usr/bin/env bash
# Integration: the `dof load` command line against the local cluster. Loading the shared
# corpora twice adds nothing the second time; a load killed with SIGKILL midway and rerun
# completes the set with no duplicate and no gap; bad files (empty, not UTF-8, binary, over
# the size limit, a broken link) are reported one by one with a reason while the rest
# loads, and the exit status says something failed; a changed file is updated; the
# password of a connection string is never printed. Hostile files fail alone, each with its
# reason, and never take the loader down: a zip bomb, deeply nested HTML, a link to
# /dev/zero, a FIFO, repeated source ids, a NUL in an EPUB title beside good files, a name
# holding "#". YAML front matter becomes title and metadata. sslmode=require goes over TLS,
# checking the server's certificate. A load folds BM25's statistics, or says why not.
# Deferred collections: no embedding.
set -uo pipefail
. "$(dirname "$0")/common.bash"
. "$scripts/config.sh"
corpora="${PG_DOF_CORPORA:-$scripts/../../shared/corpora}"
if [ ! -d "$corpora/legalize-pe-sample" ]; then
  echo "SKIPPED: no shared corpora at $corpora (set PG_DOF_CORPORA)"; exit 0
fi
cargo build --release -q -p dof_loader
dof="$CARGO_TARGET_DIR/release/dof"
export PG_DOF_DB=pg_dof_loader
"$scripts/cluster.sh" fresh >/dev/null 2>&1
export PGHOST="$("$scripts/cluster.sh" dir)" PGPORT="${PG_DOF_PORT:-5499}" PGUSER=postgres PGDATABASE=pg_dof_loader
q -c "INSERT INTO dof_collections (name, model, deferred) VALUES ('carga', 'hash-384', true), ('carga_kill', 'hash-384', true), ('malos', 'hash-384', true), ('libros', 'hash-384', true)"
pe="$corpora/legalize-pe-sample"
files=$(find "$pe" \( -name '*.md' -o -name '*.markdown' -o -name '*.txt' \) -size +0 | wc -l)

out=$("$dof" load "$pe" --collection carga --jobs 2 --batch-size 20 2>/dev/null); status=$?
check "$status" "0" "the first load succeeds"
check "$(echo "$out" | awk -F'|' 'NR == 3 {gsub(/ /, "", $2); print $2}')" "$files" "it adds every file ($files)"
out=$("$dof" load "$pe" --collection carga 2>/dev/null)
check "$(echo "$out" | awk -F'|' 'NR == 3 {gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4); print $2 "/" $3 "/" $4}')" "0/0/$files" \
  "the second load adds and updates nothing: every file unchanged"
check "$(q -c "SELECT count(*) FROM dof_documents WHERE collection = 'carga'")" "$files" "one row per file"
check "$(q -c "SELECT count(*) FROM dof_documents WHERE collection = 'carga' AND content_sha256 = encode(sha256(convert_to(body, 'UTF8')), 'hex') AND NOT metadata ? 'content_sha256'")" \
  "$files" "every row's content hash (the column; the loader compared its own digest of each body) is its body's, none in metadata"
# YAML front matter (every legalize-pe law has it) is the documents' title and metadata,
# in no chunk; a malformed block is a warning for its file, which still loads, as text
check "$(q -c "SELECT count(*) FILTER (WHERE title IS NOT NULL AND metadata ? 'identifier' AND metadata ? 'publication_date') || '/' || count(*)
                FROM dof_documents WHERE collection = 'carga' AND body LIKE E'---\\n%'")" \
      "$(q -c "SELECT count(*) || '/' || count(*) FROM dof_documents WHERE collection = 'carga' AND body LIKE E'---\\n%'")" \
      "every law with front matter has its title, identifier and publication date from it"
# the laws' front matter holds HTML character references (title: Pol&iacute;tica): stored decoded
check "$(q -c "SELECT count(*) FILTER (WHERE title ~ '&([a-z]+|#[0-9]+);') || '/' || (count(*) FILTER (WHERE split_part(body, E'\\n---', 1) ~ 'title:[^\\n]*&([a-z]+|#[0-9]+);') > 0)
                FROM dof_documents WHERE collection = 'carga'")" "0/true" \
      "no stored title holds an HTML character reference, though the laws' front matter does"
fm="$(mktemp -d)"
printf -- '---\ntitle: Ley de prueba\nidentifier: LEY-1-2024\n---\n# Ley de prueba\n\nArtículo único.\n' > "$fm/bien.md"
printf -- '---\ntitle: [sin cerrar\n---\n# Otra ley\n\nTexto.\n' > "$fm/roto.md"
q -c "INSERT INTO dof_collections (name, model) VALUES ('frente', 'hash-384')"
out=$("$dof" load "$fm" --collection frente 2>/dev/null); status=$?
check "$status:$(echo "$out" | grep -c '^warning: roto.md: front matter is not valid YAML.*loaded, the block indexed as text')" "0:1" \
      "malformed front matter: a warning naming the file, exit 0"
check "$(q -c "SELECT string_agg(d.source_id || '=' || coalesce(d.title, '-') || ',' || (d.metadata ? 'identifier') || ','
                                 || (SELECT bool_or(c.content LIKE '%title:%') FROM dof_chunks c WHERE c.document_id = d.id), ' ' ORDER BY d.source_id)
                FROM dof_documents d WHERE d.collection = 'frente'")" \
      "bien.md=Ley de prueba,true,false roto.md=-,false,true" "the good file's front matter is data, in no chunk; the broken one is text"
# the load folds the collection's BM25 statistics: a row per lexeme ('ley' is in both files,
# two delta rows unfolded); a role that may not delete them is told so, and its load succeeds
check "$(q -c "SELECT (count(*) = count(DISTINCT lexeme)) || '/' || (SELECT sum(chunks) FROM dof_term_stats WHERE collection = 'frente' AND lexeme = 'ley')
                FROM dof_term_stats WHERE collection = 'frente'")" "true/2" "the load folded the statistics: one row per lexeme, 'ley' in 2 chunks"
q -c "CREATE ROLE dof_cargadora LOGIN" -c "GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO dof_cargadora" \
  -c "GRANT DELETE ON dof_chunks, dof_documents TO dof_cargadora" -c "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO dof_cargadora" >/dev/null
printf -- '# Otra ley\n\nTexto nuevo de la ley.\n' > "$fm/roto.md"
out=$(PGUSER=dof_cargadora "$dof" load "$fm" --collection frente 2>&1); status=$?
check "$status:$(echo "$out" | grep -c "^dof load: BM25's statistics of \"frente\" not folded .*permission denied for table dof_term_stats (42501); searches are exact")" "0:1" \
      "a role that may not fold the statistics: told so, exit 0"
check "$(q -c "SELECT ((SELECT body FROM dof_documents WHERE collection = 'frente' AND source_id = 'roto.md') LIKE '%Texto nuevo%')
                      || '/' || (count(*) > count(DISTINCT lexeme)) || '/' || (SELECT sum(chunks) FROM dof_term_stats WHERE collection = 'frente' AND lexeme = 'ley')
                FROM dof_term_stats WHERE collection = 'frente'")" "true/true/2" "its file is updated, the statistics exact and left unfolded"
q -c "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM dof_cargadora" -c "REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM dof_cargadora" -c "DROP ROLE dof_cargadora" >/dev/null
rm -rf "$fm"

# killed midway: one document per transaction, SIGKILL once some are in, then a rerun
"$dof" load "$pe" --collection carga_kill --batch-size 1 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  n=$(q -c "SELECT count(*) FROM dof_documents WHERE collection = 'carga_kill'")
  [ "$n" -ge 20 ] && break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
before=$(q -c "SELECT count(*) FROM dof_documents WHERE collection = 'carga_kill'")
check "$([ "$before" -gt 0 ] && [ "$before" -lt "$files" ] && echo midway)" "midway" "the killed load stopped midway ($before of $files)"
out=$("$dof" load "$pe" --collection carga_kill 2>/dev/null); status=$?
check "$status" "0" "the rerun succeeds"
check "$(echo "$out" | awk -F'|' 'NR == 3 {gsub(/ /, "", $2); gsub(/ /, "", $4); print $2 + $4}')" "$files" "the rerun adds the rest and skips what was in"
check "$(q -c "SELECT count(*) || '/' || count(DISTINCT source_id) FROM dof_documents WHERE collection = 'carga_kill'")" "$files/$files" \
  "no duplicate and no gap"
check "$(q -c "SELECT count(*) FROM dof_documents a JOIN dof_documents b ON a.source_id = b.source_id AND b.collection = 'carga'
               WHERE a.collection = 'carga_kill' AND a.body = b.body")" "$files" "every body complete"

# bad files, one by one, while the good ones load
bad="$(mktemp -d)"
printf '# Aviso\n\nTexto válido.\n' > "$bad/bueno.md"
: > "$bad/vacio.md"
printf '\xef\xbb\xbf \n' > "$bad/marca.md"
printf -- '---\ntitle: Ley 1\n---\n\n' > "$bad/solo-yaml.md"
printf '# Aviso\n\n\xff\xfe roto\n' > "$bad/latin1.md"
printf '# Aviso\n\x00\x01\x02' > "$bad/binario.md"
head -c 2000000 /dev/zero | tr '\0' 'a' > "$bad/grande.md"
ln -s "$bad/no-existe.md" "$bad/enlace.md"
out=$("$dof" load "$bad" --collection malos --max-file-mb 1 2>/dev/null); status=$?
check "$status" "1" "the exit status says something failed"
check "$(q -c "SELECT string_agg(source_id, ',') FROM dof_documents WHERE collection = 'malos'")" "bueno.md" "the good file loads"
check "$(echo "$out" | grep -c '^failed: ')" "7" "seven failures listed"
for pair in "vacio.md: empty file" "marca.md: empty file" "solo-yaml.md: no text to index after its front matter" "latin1.md: not UTF-8" "binario.md: holds NUL" "grande.md: 2000000 bytes, over the size limit" "enlace.md: cannot read"; do
  check "$(echo "$out" | grep -c "^failed: $pair")" "1" "reason given: $pair"
done

# a PDF in a folder is left out and counted; named on the command line it fails
kinds="$(mktemp -d)"
printf '# Aviso\n\nTexto.\n' > "$kinds/aviso.md"
printf '%%PDF-1.4\n' > "$kinds/edicion.pdf"
q -c "INSERT INTO dof_collections (name) VALUES ('tipos')"
err=$("$dof" load "$kinds" --collection tipos 2>&1 >/dev/null); status=$?
check "$status" "0" "a folder with a PDF beside a markdown file loads"
check "$(echo "$err" | grep -c 'left out 1 file(s) of other kinds in the folders given (.pdf 1)')" "1" "the PDF left out is counted"
out=$("$dof" load "$kinds/edicion.pdf" --collection tipos 2>/dev/null); status=$?
check "$status" "1" "a PDF named on the command line fails"
check "$(echo "$out" | grep -c '^failed: edicion.pdf: not a kind of file dof load reads (.pdf)')" "1" "it says why"
rm -rf "$kinds"

# a Latin-1 file fails by default, naming the option, and loads with --encoding; a UTF-8
# file beside it stays UTF-8, and a UTF-16 file with a byte order mark reads either way
enc="$(mktemp -d)"
printf '# Resoluci\xf3n\n\nEl art\xedculo 5o. se\xf1ala las reglas del a\xf1o.\n' > "$enc/latin1.md"
printf '# Resolución\n\nTexto en UTF-8.\n' > "$enc/utf8.md"
python3 -c 'import sys; open(sys.argv[1], "wb").write("# Resolución\n\nTexto en UTF-16.\n".encode("utf-16"))' "$enc/utf16.md"
printf '<html><head><meta charset="iso-8859-1"></head><body><h1>Resoluci\xf3n</h1><p>Aviso del a\xf1o.</p></body></html>' > "$enc/latin1.html"
q -c "INSERT INTO dof_collections (name) VALUES ('codificacion')"
out=$("$dof" load "$enc" --collection codificacion 2>/dev/null); status=$?
check "$status:$(echo "$out" | grep -c '^failed: latin1.md: not UTF-8 (invalid byte at offset 10); .*--encoding windows-1252')" "1:1" \
  "a Latin-1 file fails by default, naming the byte and --encoding"
check "$(q -c "SELECT body FROM dof_documents WHERE collection = 'codificacion' AND source_id = 'latin1.html'" | tr '\n' ' ')" \
  "# Resolución  Aviso del año. " "an HTML file in Latin-1 that says so in its head loads without --encoding"
out=$("$dof" load "$enc" --collection codificacion --encoding latin1 2>/dev/null); status=$?
check "$status" "0" "--encoding latin1 loads it"
check "$(q -c "SELECT string_agg(source_id || '=' || (body LIKE '# Resolución%' AND body NOT LIKE '%Ã%')::text, ',' ORDER BY source_id)
               FROM dof_documents WHERE collection = 'codificacion'")" "latin1.html=true,latin1.md=true,utf16.md=true,utf8.md=true" "each file read in its encoding"
check "$(q -c "SELECT string_agg(d.source_id, ',') FROM dof_text_search('articulo senala', 5, 'codificacion') t
               JOIN dof_chunks c ON c.id = t.chunk_id JOIN dof_documents d ON d.id = c.document_id")" "latin1.md" "its words are found"
check "$("$dof" load "$enc" --collection codificacion --encoding klingon >/dev/null 2>&1; echo $?)" "2" "an unknown encoding is refused"
rm -rf "$enc"

# a changed file is updated; the password is never printed
printf '# Aviso\n\nTexto corregido.\n' > "$bad/bueno.md"
out=$("$dof" load "$bad/bueno.md" --collection malos --connection "host=$PGHOST port=$PGPORT user=postgres dbname=pg_dof_loader password=s3cr3t-pw" 2>&1)
check "$(echo "$out" | awk -F'|' '/^\| [0-9]/ {gsub(/ /, "", $3); print $3}')" "1" "a changed file is updated"
check "$(q -c "SELECT body LIKE '%corregido%' FROM dof_documents WHERE collection = 'malos'")" "t" "with its new text"
check "$(echo "$out" | grep -c 's3cr3t')" "0" "the password is not printed"
out=$("$dof" load "$bad" --collection no_existe 2>&1); status=$?
check "$status:$(echo "$out" | grep -c 'collection "no_existe" does not exist')" "2:1" "an unknown collection is refused before reading"
rm -rf "$bad"

# EPUB (one document per spine item, in reading order) and HTML (headings kept); a broken
# EPUB fails alone
books="$(mktemp -d)"
python3 - "$books/ley.epub" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("mimetype", "application/epub+zip")
    z.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf"/></rootfiles></container>')
    z.writestr("OPS/book.opf", '<package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>Ley Federal de Prueba</dc:title></metadata>'
               '<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="b.xhtml" media-type="application/xhtml+xml"/></manifest>'
               '<spine><itemref idref="b"/><itemref idref="a"/></spine></package>')
    z.writestr("OPS/a.xhtml", "<html><body><h1>Capítulo Segundo</h1><p>De las obligaciones.</p></body></html>")
    z.writestr("OPS/b.xhtml", "<html><body><h1>Capítulo Primero</h1><p>Disposiciones generales.</p></body></html>")
PY
printf '<html><body><nav>menú</nav><h1>Aviso</h1><h2>Primero</h2><p>Texto del aviso.</p></body></html>' > "$books/aviso.html"
head -c 5000 /dev/urandom > "$books/roto.epub"
out=$("$dof" load "$books" --collection libros 2>/dev/null); status=$?
check "$status" "1" "a broken EPUB makes the exit status say so"
check "$(echo "$out" | grep -c '^failed: roto.epub: not a readable EPUB')" "1" "and is reported with a reason"
check "$(q -c "SELECT string_agg(source_id || '=' || coalesce(metadata->>'title', '-'), ',' ORDER BY source_id) FROM dof_documents WHERE collection = 'libros'")" \
  "aviso.html=-,ley.epub#000-b.xhtml=Capítulo Primero,ley.epub#001-a.xhtml=Capítulo Segundo" "spine items in reading order with their titles, and the HTML page"
check "$(q -c "SELECT body FROM dof_documents WHERE source_id = 'aviso.html'" | head -1)" "# Aviso" "HTML headings become markdown headings"
check "$(q -c "SELECT count(*) FROM dof_documents WHERE collection = 'libros' AND (body LIKE '%menú%' OR metadata->>'publication' IS DISTINCT FROM CASE WHEN source_id LIKE 'ley%' THEN 'Ley Federal de Prueba' END)")" \
  "0" "navigation left out; the book's title on its chapters"
# the book changes and loses a chapter: the chapter gone is deleted, the other updated
python3 - "$books/ley.epub" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("mimetype", "application/epub+zip")
    z.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf"/></rootfiles></container>')
    z.writestr("OPS/book.opf", '<package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>Ley Federal de Prueba</dc:title></metadata>'
               '<manifest><item id="b" href="b.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="b"/></spine></package>')
    z.writestr("OPS/b.xhtml", "<html><body><h1>Capítulo Primero</h1><p>Disposiciones generales, reformadas.</p></body></html>")
PY
out=$("$dof" load "$books/ley.epub" --collection libros 2>/dev/null)
check "$(echo "$out" | awk -F'|' '/^\| [0-9]/ {gsub(/ /, "", $3); gsub(/ /, "", $10); print $3 "/" $10}')" "1/1" "a changed EPUB: its chapter updated, the chapter it lost removed"
check "$(q -c "SELECT string_agg(source_id, ',' ORDER BY source_id) FROM dof_documents WHERE collection = 'libros'")" \
  "aviso.html,ley.epub#000-b.xhtml" "the removed chapter's document is gone"
rm -rf "$books"

# hostile files, generated here: each fails alone, with its reason, in one run that ends
# with a summary; the good files beside them load
hostile="$(mktemp -d)"
q -c "INSERT INTO dof_collections (name, model, deferred) VALUES ('hostil', 'hash-384', true)"
python3 - "$hostile" <<'PY'
import os, sys, zipfile
d = sys.argv[1]
def epub(path, title, body):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf"/></rootfiles></container>')
        z.writestr("OPS/book.opf", '<package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>' + title + '</dc:title></metadata>'
                   '<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>')
        z.writestr("OPS/a.xhtml", body)
# a zip bomb: one entry of 200 MB that deflates to ~200 KB
epub(os.path.join(d, "bomba.epub"), "Bomba", "<p>" + "a" * (200 << 20) + "</p>")
# a NUL in the title (jsonb refuses it): fails alone in a batch of good files
epub(os.path.join(d, "nul.epub"), "Ley\u0000Nula", "<h1>Ley</h1><p>Texto.</p>")
for i in range(6):
    open(os.path.join(d, f"bueno{i}.md"), "w").write(f"# Bueno {i}\n\nUn documento correcto número {i}.")
open(os.path.join(d, "divs.html"), "w").write("<div>" * 10000 + "x" + "</div>" * 10000)
open(os.path.join(d, "listas.html"), "w").write("<ul><li>" * 20000 + "x")
open(os.path.join(d, "negritas.html"), "w").write("<b>" * 100000 + "x")
os.symlink("/dev/zero", os.path.join(d, "zero.md"))
os.mkfifo(os.path.join(d, "tubo.md"))
PY
start=$(date +%s)
out=$(timeout 120 "$dof" load "$hostile" --collection hostil --max-file-mb 64 2>&1); status=$?
check "$status" "1" "hostile files: the load ends (no abort, no hang: $(( $(date +%s) - start )) s) and its exit status says files failed"
check "$(echo "$out" | grep -c '^| added')" "1" "with its summary"
check "$(echo "$out" | grep -c '^failed: bomba.epub: EPUB entries inflate to over 67108864 bytes')" "1" "a zip bomb fails at --max-file-mb of inflated bytes"
check "$(echo "$out" | grep -cE '^failed: (divs|listas|negritas).html: HTML nested [0-9]+ elements deep')" "3" "deeply nested HTML (divs, unclosed lists, 100,000 <b>) fails unparsed"
check "$(echo "$out" | grep -cE '^failed: (zero|tubo).md: not a regular file')" "2" "a link to /dev/zero and a FIFO are skipped"
check "$(echo "$out" | grep -c '^failed: nul.epub#000-a.xhtml: not written:.*22P05')" "1" "a NUL in an EPUB title fails that document alone, named"
check "$(q -c "SELECT count(*) FROM dof_documents WHERE collection = 'hostil'")" "6" "and the six good files beside it are stored"
rm -rf "$hostile"

# repeated source ids: the later file fails, naming the first; nothing is overwritten
dups="$(mktemp -d)"; mkdir -p "$dups/a" "$dups/b" "$dups/c/a.md#viejo"
printf '# Primero\n\nEl primero.' > "$dups/a/x.md"; printf '# Segundo\n\nEl segundo.' > "$dups/b/x.md"
out=$("$dof" load "$dups/a" "$dups/b" --collection hostil 2>&1); status=$?
check "$status:$(echo "$out" | grep -c "^failed: x.md: the same source id as $dups/a/x.md")" "1:1" "a repeated source id fails the later file, naming the first"
check "$(q -c "SELECT body FROM dof_documents WHERE collection = 'hostil' AND source_id = 'x.md'")" "# Primero

El primero." "the first file's document is stored, not overwritten"
# a name holding '#' is a file of its own, not a part of a.md: a rerun removes nothing
printf '# A\n\nTexto a.' > "$dups/c/a.md"; printf '# B\n\nTexto b.' > "$dups/c/a.md#viejo/b.md"
"$dof" load "$dups/c" --collection hostil >/dev/null 2>&1
printf '# A\n\nTexto a, cambiado.' > "$dups/c/a.md"
out=$("$dof" load "$dups/c" --collection hostil 2>/dev/null)
check "$(echo "$out" | awk -F'|' '/^\| [0-9]/ {gsub(/ /, "", $3); gsub(/ /, "", $10); print $3 "/" $10}'):$(q -c "SELECT count(*) FROM dof_documents WHERE source_id = 'a.md#viejo/b.md'")" "1/0:1" \
      "a changed a.md is updated and a.md#viejo/b.md is not removed"
# --jobs far over the files: a writer per file at most (--jobs 100000 started a thread for
# each, and the loader aborted when the system had no memory left for them)
out=$("$dof" load "$dups/c" --collection hostil --jobs 100000 2>&1); status=$?
check "$status:$(echo "$out" | grep -c ', 2 job(s)$'):$(echo "$out" | grep -c '^| added')" "0:1:1" \
      "--jobs 100000 for 2 files: 2 writers, the load completes and is summarised"
# --jobs over the free connections: the writers that connect do the work, with a summary
q -c "ALTER SYSTEM SET max_connections = 20" >/dev/null; "$scripts/cluster.sh" restart >/dev/null 2>&1
out=$("$dof" load "$pe" --collection hostil --jobs 40 2>&1); status=$?
check "$status:$(echo "$out" | grep -c '^| added'):$(echo "$out" | grep -c 'writer connections failed')" "0:1:1" \
      "--jobs 40 with max_connections 20: the load completes, summarised, saying how many writers could not connect"
check "$(q -c "SELECT count(*) FROM dof_documents WHERE collection = 'hostil' AND source_id NOT IN ('x.md', 'a.md', 'a.md#viejo/b.md')" )" "$((files + 6))" "every file stored"
q -c "ALTER SYSTEM RESET max_connections" >/dev/null; "$scripts/cluster.sh" restart >/dev/null 2>&1
rm -rf "$dups"

# TLS: a server that takes only TLS connections over TCP (pg_hba hostssl), its certificate
# signed by a CA of this test. sslmode=require with PGSSLROOTCERT naming that CA loads; without
# it, the certificate is refused, saying how to add the CA; in the clear, the server refuses
tls="$(mktemp -d)"; chmod 755 "$tls"; chown postgres "$tls"
( cd "$tls" && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=dof-test-ca" -keyout ca.key -out ca.crt 2>/dev/null \
  && openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null \
  && printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > ext \
  && openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile ext -out server.crt 2>/dev/null \
  && chmod 600 server.key && chown postgres server.key server.crt && chmod a+r ca.crt )
sudo -u postgres "$PG_BIN/initdb" -D "$tls/data" -A trust -U postgres >/dev/null 2>&1
printf 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n' > "$tls/data/pg_hba.conf"; chown postgres "$tls/data/pg_hba.conf"
tls_port=$(( ${PG_DOF_PORT:-5499} + 22 ))
sudo -u postgres "$PG_BIN/pg_ctl" -D "$tls/data" -l "$tls/log" -w start \
  -o "-p $tls_port -k $tls -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=$tls/server.crt -c ssl_key_file=$tls/server.key" >/dev/null
PGHOST="$tls" PGPORT=$tls_port psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "SET client_min_messages = warning" -c "CREATE EXTENSION pg_dof CASCADE" \
  -c "INSERT INTO dof_collections (name, model, deferred) VALUES ('cifrada', 'hash-384', true)"
mkdir -p "$tls/docs"; printf '# Aviso\n\nTexto.\n' > "$tls/docs/uno.md"
over_tls="host=127.0.0.1 port=$tls_port dbname=postgres user=postgres"
out=$(PGSSLROOTCERT="$tls/ca.crt" "$dof" load "$tls/docs" --collection cifrada --connection "$over_tls sslmode=require" 2>&1); status=$?
check "$status:$(PGHOST="$tls" PGPORT=$tls_port psql -X -At -d postgres -c "SELECT count(*) FROM dof_documents WHERE collection = 'cifrada'")" "0:1" \
      "sslmode=require with PGSSLROOTCERT: the load goes over TLS (the server takes nothing else over TCP)"
out=$(PGSSLMODE=require "$dof" load "$tls/docs" --collection cifrada --connection "$over_tls" 2>&1); status=$?
check "$status:$(echo "$out" | grep -c 'certificate verify failed.*PGSSLROOTCERT=FILE adds a CA')" "2:1" \
      "PGSSLMODE=require, the CA unknown to the platform: refused, saying how to add it"
out=$("$dof" load "$tls/docs" --collection cifrada --connection "$over_tls sslmode=disable" 2>&1); status=$?
check "$status:$(echo "$out" | grep -c 'no encryption')" "2:1" "in the clear, the server's refusal is shown whole"
sudo -u postgres "$PG_BIN/pg_ctl" -D "$tls/data" -m fast -w stop >/dev/null
rm -rf "$tls"
finish
