#!/usr/bin/env bash
# Integration: an install of each earlier release (the frozen scripts in sql/releases/:
# 0.1.0, 0.2.0) with documents, updated by ALTER EXTENSION pg_dof UPDATE, has the catalog
# of a fresh install of the current version (tests/integration/catalog.sql), keeps every
# document and chunk, and answers the same searches as before the update. Real model, real
# pgvector, the local cluster.
set -uo pipefail
. "$(dirname "$0")/common.bash"
tests="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$scripts/.." && pwd)"
current="$(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -1)"

# A database keeps calling its installed version's C symbols with the new library until it is
# updated: every symbol a frozen install script or an upgrade script names must still exist.
library="$("${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" --pkglibdir)/pg_dof.so"
# nm's list read once: `nm | grep -q` under pipefail failed whenever grep's early exit sent
# nm SIGPIPE, and reported present symbols missing
symbols="$(nm -D --defined-only "$library")"
missing=$(cat "$repo"/sql/releases/*.sql "$repo"/sql/pg_dof--*--*.sql | sed -n "s/.*'MODULE_PATHNAME', '\([a-z_0-9]*\)'.*/\1/p" | sort -u \
  | while read -r symbol; do grep -qw "$symbol" <<<"$symbols" || echo "$symbol"; done)
check "${missing:-none}" "none" "every C symbol of the frozen and upgrade scripts is in the new library"

upgrade_from() { # RELEASE: install it with the samples, update, compare with a fresh install
local from="$1"
for db in pg_dof_upgrade pg_dof_fresh; do
  PG_DOF_DB=postgres "$scripts/cluster.sh" psql -X -q -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
done
export PG_DOF_DB=pg_dof_fresh
q -c "SET client_min_messages = warning; CREATE EXTENSION pg_dof CASCADE"
export PG_DOF_DB=pg_dof_upgrade
q -c "SET client_min_messages = warning; CREATE EXTENSION pg_dof VERSION '$from' CASCADE"
check "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_dof'")" "$from" "$from installs from the frozen script"
for f in "$repo"/samples/*.md; do
  # psql interpolates variables in input it reads, not in -c commands
  echo "INSERT INTO dof_documents (source_id, body) VALUES (:'id', :'body')" | q -v id="$(basename "$f" .md)" -v body="$(cat "$f")"
done
check "$(q -c "SELECT count(*) FROM dof_documents")" "$(ls "$repo"/samples/*.md | wc -l)" "every sample is loaded before the update"
# and a chunk over the model's window: 780 tokens, under the 800-token default limit, over
# the 510 that e5 embeds in one window (before 0.3.0, embedded from its start only)
q -c "INSERT INTO dof_documents (source_id, body) VALUES ('largo', repeat('Artículo primero de la ley federal de derechos y su reglamento. ', 60))"
# the library installed is this version's, which embeds every token and stamps version 3:
# stamp the long chunk as the earlier release's library wrote it
q -c "UPDATE dof_chunks c SET chunker_version = '2' FROM dof_documents d WHERE d.id = c.document_id AND d.source_id = 'largo'"
# and a number with leading zeros and no sign, which 0.3.0 also indexes without them, and an
# identifier joined by slashes and dots, which 0.3.0 also indexes as its words
q -c "INSERT INTO dof_documents (source_id, body) VALUES ('ordenanza', 'Ordenanza regional número 0004 del 08 de abril de 2019, que aprueba el plan.')"
q -c "INSERT INTO dof_documents (source_id, body) VALUES ('acuerdo', 'Acuerdo del consejo G.R.PASCO/CR, visto el oficio de la GR CUSCO/GR.')"
# and an article number with an ordinal sign, which 0.3.0 also indexes as the number
q -c "INSERT INTO dof_documents (source_id, body) VALUES ('articulo', 'Artículo 1º.- Del objeto de la presente ley.')"
# and Peru's spelling of a month and an ordinal, which 0.3.0 also indexes in the other one
q -c "INSERT INTO dof_documents (source_id, body) VALUES ('setiembre', 'Publicada el 30 de setiembre de 2019 con la sétima disposición final.')"
# and an article numbered in words, which 0.3.0 also indexes as the figure (and the 'articulo'
# above in figures, also as the word)
q -c "INSERT INTO dof_documents (source_id, body) VALUES ('acuerdo-segundo', 'ARTÍCULO SEGUNDO.- Aprobar el plan regional.')"
# and a date in figures, which 0.3.0 also indexes as its words
q -c "INSERT INTO dof_documents (source_id, body) VALUES ('fecha', 'Recibido con fecha 05/03/2021 y 07.06.2022 por la mesa de partes.')"
q -c "ANALYZE dof_chunks"
searches="SELECT string_agg(chunk_id::text, ',' ORDER BY score DESC, chunk_id) FROM dof_hybrid_search('tipo de cambio del dólar', k => 5)
UNION ALL SELECT string_agg(chunk_id::text, ',' ORDER BY rank) FROM dof_text_search('etiquetado', k => 5)"
counts="SELECT (SELECT count(*) FROM dof_documents) || '/' || (SELECT count(*) FROM dof_chunks WHERE embedding IS NOT NULL)"
before_search="$(q -c "$searches")"; before_counts="$(q -c "$counts")"
filenode_before="$(q -c "SELECT pg_relation_filenode('dof_chunks')")"
if [ "$from" = 0.1.0 ]; then
  # 0.2.0 requires unaccent (Spanish without accents): without it the update stops, clearly
  refused="$(q -c "ALTER EXTENSION pg_dof UPDATE" 2>&1)"
  check "$(echo "$refused" | grep -c 'required extension "unaccent" is not installed')" "1" "the update says unaccent is needed first"
  check "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_dof'")" "0.1.0" "and leaves 0.1.0 as it was"
  q -c "CREATE EXTENSION unaccent"
fi
# 0.3.0 requires dict_int (identifiers without their sign): the update says so and stops
refused="$(q -c "ALTER EXTENSION pg_dof UPDATE" 2>&1)"
check "$(echo "$refused" | grep -c 'required extension "dict_int" is not installed')" "1" "the update from $from says dict_int is needed first"
check "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_dof'")" "$from" "and leaves $from as it was"
q -c "CREATE EXTENSION dict_int"
q -c "ALTER EXTENSION pg_dof UPDATE"
check "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_dof'")" "$current" "ALTER EXTENSION pg_dof UPDATE from $from reaches $current"
check "$(q -c "$counts")" "$before_counts" "every document and chunk kept (documents/embedded chunks)"
check "$(q -c "SELECT count(*) FILTER (WHERE content_sha256 = encode(sha256(convert_to(body, 'UTF8')), 'hex')) || '/' || count(*) FROM dof_documents")" \
  "$(q -c "SELECT count(*) || '/' || count(*) FROM dof_documents")" "every stored document has its body's content hash in the new column"
check "$(q -c "$stats_wrong")" "0" "BM25 statistics built from the stored chunks are exact"
padded="$(q -c "SELECT count(*) FROM dof_chunks c WHERE EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme ~ '^0+[0-9]+$')")"
check "$(q -c "SELECT count(*) FROM dof_chunks c JOIN dof_collections k ON k.name = c.collection
               WHERE c.tsv IS DISTINCT FROM dof_chunk_tsvector(k.text_search_config, c.heading_path, c.content, c.metadata)")" "0" \
      "every stored tsvector is the one $current builds ($padded chunks with a number with leading zeros, now also without them)"
check "$(( padded > 0 ))" "1" "chunks hold numbers with leading zeros ($padded)"
check "$(q -c "SELECT count(*) FROM dof_chunks c WHERE EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme = 'cusco/gr')
               AND EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme = 'cusc')")" "1" "an identifier joined by a slash is also indexed as its words"
check "$(q -c "SELECT count(*) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id
               WHERE d.source_id = 'articulo' AND EXISTS (SELECT 1 FROM unnest(c.tsv) l WHERE l.lexeme = '1')")" "1" "an article number with an ordinal sign is also indexed as the number"
check "$(q -c "SELECT string_agg(DISTINCT l.lexeme, ',' ORDER BY l.lexeme) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id, unnest(c.tsv) l
               WHERE d.source_id = 'setiembre' AND l.lexeme ~ '^se'")" "septiembr,septim,setiembr,setim" "a month and an ordinal in Peru's spelling are also indexed in the other"
check "$(q -c "SELECT string_agg(d.source_id || ':' || l.lexeme, ',' ORDER BY d.source_id, l.lexeme) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id, unnest(c.tsv) l
               WHERE d.source_id IN ('articulo', 'acuerdo-segundo') AND l.lexeme IN ('1', 'primer', '2', 'segund')")" "acuerdo-segundo:2,acuerdo-segundo:segund,articulo:1,articulo:primer" \
      "an article of the document's own is also indexed in its other form, figures or words"
check "$(q -c "SELECT string_agg(l.lexeme, ',' ORDER BY l.lexeme) FROM dof_chunks c JOIN dof_documents d ON d.id = c.document_id, unnest(c.tsv) l
               WHERE d.source_id = 'fecha' AND l.lexeme IN ('marz', 'juni')")" "juni,marz" "a date in figures is also indexed as its words"
check "$(q -c "$searches")" "$before_search" "the same searches give the same chunks after the update"
check "$(q -c "SELECT count(*) FILTER (WHERE p.embedding = c.embedding AND p.char_end = char_length(c.content)) || '/' || count(*)
                FROM dof_chunks c JOIN dof_passages p ON p.chunk_id = c.id")" "$(q -c "SELECT count(*) || '/' || count(*) FROM dof_chunks WHERE embedding IS NOT NULL")" \
      "every stored chunk is its own one passage, with its vector, until it is indexed again"
# the chunk over 510 tokens was embedded from its start only: the report says how many,
# and re-indexing (dof_requeue, then the queue) embeds every token
cut="$(q -c "SELECT sum(cut_embeddings) FROM dof_token_stats")"
check "$(( cut > 0 ))" "1" "after the update from $from, dof_token_stats counts $cut chunks whose vector saw only their start"
check "$(q -c "SELECT count(*) FILTER (WHERE contents IS NULL) = count(*) FROM dof_chunks")" "t" \
      "the chunks stored before hold no tables-of-contents answer (NULL: the legs test their text as they read them)"
q -c "SET client_min_messages = warning" -c "SELECT dof_requeue()" -c "CALL dof_process_queue()" >/dev/null
check "$(q -c "SELECT count(*) FILTER (WHERE contents IS DISTINCT FROM dof_contents(heading_path, content)) || '/' || (count(*) > 0) FROM dof_chunks")" "0/true" \
      "indexed again, every chunk holds the rule's answer (dof_chunks.contents)"
check "$(q -c "SELECT sum(cut_embeddings) || '/' || (SELECT count(*) FROM dof_queue WHERE status <> 'done')  FROM dof_token_stats")" "0/0" \
      "after dof_requeue and the queue, none (every document indexed again)"
check "$(q -c "SELECT pg_relation_filenode('dof_chunks')")" "$filenode_before" "dof_chunks is not rewritten (embedding loses its vector(384) modifier in place)"
check "$(q -c "SELECT string_agg(tablename || '.' || indexname || ' ' || (indexdef LIKE '%(embedding)::halfvec(384)) halfvec_cosine_ops%'), ',' ORDER BY indexname)
                FROM pg_indexes WHERE tablename IN ('dof_chunks', 'dof_passages') AND indexdef LIKE '%hnsw%'")" \
      "dof_passages.dof_passages_embedding_384 true" "the HNSW index is the per-dimension one of the passages, on halfvec"
# (0.1.0's default collection is late-chunked: one passage per chunk, its late vector)
check "$(q -c "WITH p AS (SELECT c.id, k.late_chunking, count(p.chunk_id) AS passages,
                                 count(*) FILTER (WHERE p.token_count > k.passage_tokens) AS over
                          FROM dof_chunks c JOIN dof_collections k ON k.name = c.collection
                          LEFT JOIN dof_passages p ON p.chunk_id = c.id GROUP BY c.id, k.late_chunking)
                SELECT count(*) FILTER (WHERE NOT late_chunking AND over > 0) || '/' || count(*) FILTER (WHERE passages = 0)
                       || '/' || count(*) FILTER (WHERE late_chunking AND passages <> 1)
                       || '/' || (bool_and(late_chunking) OR sum(passages) FILTER (WHERE NOT late_chunking) > count(*) FILTER (WHERE NOT late_chunking))
                FROM p")" "0/0/0/true" \
      "indexed again, chunks are cut into passages: none over passage_tokens, no chunk without one, one per late-chunked chunk, more passages than chunks otherwise"
builtin_models="SELECT string_agg(concat_ws(':', name, kind, model_file, tokenizer_file, dimension, revision, is_default), ' ' ORDER BY name)
  FROM dof_models WHERE builtin"
upgraded_models="$(q -c "$builtin_models")"
upgraded="$(mktemp)"; fresh="$(mktemp)"
q -f "$tests/catalog.sql" > "$upgraded"
export PG_DOF_DB=pg_dof_fresh
q -f "$tests/catalog.sql" > "$fresh"
check "$upgraded_models" "$(q -c "$builtin_models")" "the built-in models after the update are a fresh install's (the int8 variant added)"
check "$(( $(wc -l < "$fresh") > 50 ))" "1" "the catalog query lists the extension's objects ($(wc -l < "$fresh") lines)"
if diff "$fresh" "$upgraded" > /dev/null; then
  check same same "the catalog updated from $from equals a fresh $current install ($(wc -l < "$fresh") objects and definitions)"
else
  diff "$fresh" "$upgraded" | cut -c1-300 | head -40
  check differs same "the catalog updated from $from equals a fresh $current install"
fi
rm -f "$upgraded" "$fresh"
}

for release in $(ls "$repo"/sql/releases/pg_dof--*.sql | sed 's/.*pg_dof--\(.*\)\.sql/\1/' | sort -V); do
  upgrade_from "$release"
done

# metadata that is not a JSON object (0.2.0 took any by INSERT): the update keeps the row,
# leaves the new check NOT VALID and says how many rows to fix; new rows must have an object
PG_DOF_DB=postgres "$scripts/cluster.sh" psql -X -q -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS pg_dof_upgrade" -c "CREATE DATABASE pg_dof_upgrade"
export PG_DOF_DB=pg_dof_upgrade
q -c "SET client_min_messages = warning; CREATE EXTENSION pg_dof VERSION '0.2.0' CASCADE; CREATE EXTENSION dict_int"
q -c "INSERT INTO dof_documents (source_id, body, metadata) VALUES ('cadena', 'Texto del aviso.', '\"vigente\"')"
updated="$(q -c "ALTER EXTENSION pg_dof UPDATE" 2>&1)"
check "$(echo "$updated" | grep -c '1 documents have metadata that is not a JSON object')" "1" "the update warns of the document whose metadata is not an object"
check "$(q -c "SELECT metadata::text || '/' || (SELECT count(*) FROM dof_chunks) FROM dof_documents")" '"vigente"/1' "and keeps it as it was, with its chunk"
check "$(q -c "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'dof_documents_metadata_check'")" \
      "CHECK ((jsonb_typeof(metadata) = 'object'::text)) NOT VALID" "the check is left NOT VALID"
refused="$(q -c "INSERT INTO dof_documents (source_id, body, metadata) VALUES ('lista', 'Texto.', '[1]')" 2>&1)"
check "$(echo "$refused" | grep -c 'violates check constraint "dof_documents_metadata_check"')" "1" "a new document whose metadata is an array is refused"
finish
