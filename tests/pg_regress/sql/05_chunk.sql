-- dof_classify, dof_classify_features and dof_chunk.
CREATE EXTENSION pg_dof CASCADE;
set SHOW_CONTEXT never
SELECT dof_classify('# Aviso breve') AS small,
       dof_classify(repeat(E'| a | b |\n', 2000)) AS giant_table,
       dof_classify(E'## Uno\n\n' || repeat('texto ', 2000) || E'\n\n## Dos\n') AS h2_compound,
       dof_classify(E'**Licitación**\n\n' || repeat('texto ', 2000) || E'\n\n**Fecha**\n') AS bold_headers,
       dof_classify(repeat('texto ', 2000)) AS plain_text,
       dof_classify('## A' || E'\n## B', small_bytes => 0) AS thresholds_are_parameters;
SELECT * FROM dof_classify_features(E'## Uno\n\n**Negrita**\n\n| a |\n|---|\n| 1 |\n');

-- a small document: one chunk, the whole text, with its heading path
SELECT chunk_index, pattern, heading_path, content, token_count, char_start, char_end, sizer
FROM dof_chunk(E'# Tipo de cambio\n\nEl tipo de cambio fue de 17.05 pesos por dólar.\n');

-- a table split at 60 tokens: every piece repeats the header; the text after it is kept
CREATE TEMP TABLE doc AS
SELECT E'Cuotas vigentes.\n\n| Clave | Concepto | Cuota |\n|---|---|---|\n'
       || string_agg(format('| %s | derecho %s | %s.00 |', i, i, i * 10), E'\n' ORDER BY i)
       || E'\n\nNota final.' AS body
FROM generate_series(1, 12) i;
SELECT chunk_index, table_piece, header_repeated, token_count, content
FROM doc, dof_chunk(body, max_tokens => 60, pattern => 'giant_table') ORDER BY chunk_index;

-- self-checking invariants on a larger document: limit, offsets, exact token counts
CREATE TEMP TABLE big AS
SELECT string_agg(format(E'## Decreto %s\n\n%s', i, repeat(format('Artículo %s. Se reforma la ley federal. ', i), 40)), E'\n\n') AS body
FROM generate_series(1, 30) i;
SELECT count(*) > 30 AS many_chunks,
       max(token_count) <= 200 AS under_limit,
       count(*) FILTER (WHERE right(content, char_end - char_start) <> substr(body, char_start + 1, char_end - char_start)) AS offset_mismatches,
       count(DISTINCT pattern) AS patterns
FROM big, dof_chunk(body, max_tokens => 200);

-- the character fallback when no tokenizer is wanted
SELECT sizer, token_count FROM dof_chunk('uno dos  tres', model => '');
-- nothing to chunk
SELECT count(*) AS no_rows FROM dof_chunk(NULL);
SELECT count(*) AS no_rows FROM dof_chunk(E'  \n\t ');

-- bad arguments
SELECT * FROM dof_chunk('texto', max_tokens => 5);
SELECT * FROM dof_chunk('texto', overlap_tokens => -1);
SELECT * FROM dof_chunk('texto', pattern => 'tabla');
SELECT * FROM dof_chunk('texto', model => 'no-such-model');
SELECT dof_classify('x', table_line_ratio => 2);
