-- dof_chunk takes a model name: its tokenizer comes from dof_models ('' or a hash model:
-- characters). SQL-standard body: dof_model and dof_chunk_internal are bound by OID.
CREATE FUNCTION dof_chunk(doc text, max_tokens integer DEFAULT 800, overlap_tokens integer DEFAULT 50,
                          pattern text DEFAULT NULL, model text DEFAULT NULL,
                          strategy text DEFAULT 'pattern', options jsonb DEFAULT '{}')
    RETURNS TABLE (chunk_index integer, pattern text, heading_path text[], content text, token_count integer,
                   char_start integer, char_end integer, table_piece boolean, header_repeated boolean,
                   overlap boolean, split boolean, sizer text)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT c.* FROM dof_chunk_internal(doc, max_tokens, overlap_tokens, pattern,
                                       CASE WHEN model = '' THEN NULL ELSE (dof_model(model)).tokenizer_file END,
                                       strategy, options) c;
END;

COMMENT ON FUNCTION dof_classify(text, integer, double precision, integer, integer, integer) IS
    'Structural pattern of a markdown document: small, h2_compound, bold_headers, plain_text or giant_table (seed 000 rules; thresholds are parameters)';
COMMENT ON FUNCTION dof_classify_features(text) IS
    'The features behind dof_classify (bytes, non-empty lines, table lines and ratio, H2 headings, bold lines) with the default decision';
COMMENT ON FUNCTION dof_chunk(text, integer, integer, text, text, text, jsonb) IS
    'Chunks of a markdown document by a strategy (dof_chunk_strategies(); default pattern, with options as a collection''s chunker_options), none over max_tokens tokens of the model''s tokenizer (model NULL: the default model; '''' or a hash model: characters); overlap_tokens (pattern: plain_text only) is capped at max_tokens / 4; char_start/char_end are 0-based, end exclusive: substr(doc, char_start + 1, char_end - char_start)';
COMMENT ON FUNCTION dof_chunk_internal(text, integer, integer, text, text, text, jsonb) IS 'Internal: use dof_chunk';
COMMENT ON FUNCTION dof_chunk_strategies() IS 'The chunking strategies a collection''s chunker (and dof_chunk''s strategy) can name, with the settings each accepts in chunker_options';
COMMENT ON FUNCTION dof_check_chunker(text, jsonb) IS 'True when the strategy exists and accepts the options; otherwise an ERROR (22023) saying why (the CHECK on dof_collections)';
