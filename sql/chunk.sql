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
                                       CASE WHEN model = '' THEN NULL ELSE dof_model(model) END,
                                       strategy, options) c;
END;

-- The semantic strategy with its settings as arguments; NULL takes a default.
CREATE FUNCTION dof_chunk_semantic(doc text, threshold_type text DEFAULT 'percentile',
                                   threshold_amount double precision DEFAULT NULL, buffer_size integer DEFAULT 1,
                                   min_tokens integer DEFAULT 0, max_tokens integer DEFAULT 800,
                                   overlap_sentences integer DEFAULT 0, model text DEFAULT NULL,
                                   unit text DEFAULT 'paragraph')
    RETURNS TABLE (chunk_index integer, pattern text, heading_path text[], content text, token_count integer,
                   char_start integer, char_end integer, table_piece boolean, header_repeated boolean,
                   overlap boolean, split boolean, sizer text)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT c.* FROM dof_chunk(doc, max_tokens, 0, NULL, model, 'semantic',
                              jsonb_strip_nulls(jsonb_build_object(
                                  'threshold_type', threshold_type, 'threshold_amount', threshold_amount,
                                  'buffer_size', buffer_size, 'min_tokens', min_tokens,
                                  'overlap_sentences', overlap_sentences, 'unit', unit))) c;
END;

-- chunk_paragraphs over a list of paragraphs: ids {source_id}#{index}.
CREATE FUNCTION dof_chunk_paragraphs(paragraphs text[], source_id text, max_chars integer DEFAULT 1500,
                                     min_chars integer DEFAULT 80, metadata jsonb DEFAULT '{}',
                                     max_tokens integer DEFAULT NULL, model text DEFAULT NULL)
    RETURNS TABLE (chunk_id text, chunk_index integer, content text, metadata jsonb, para_count integer,
                   split boolean, first_paragraph integer, last_paragraph integer, token_count integer, sizer text)
    LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT c.* FROM dof_chunk_paragraphs_internal(paragraphs, source_id, max_chars, min_chars, metadata, max_tokens,
                                                  CASE WHEN max_tokens IS NULL OR model = '' THEN NULL
                                                       ELSE (dof_model(model)).tokenizer_file END) c;
END;

COMMENT ON FUNCTION dof_classify(text, integer, double precision, integer, integer, integer) IS
    'Structural pattern of a markdown document: small, h2_compound, bold_headers, plain_text or giant_table (the classification rules of dof_classify_features; thresholds are parameters)';
COMMENT ON FUNCTION dof_classify_features(text) IS
    'The features behind dof_classify (bytes, non-empty lines, table lines and ratio, H2 headings, bold lines) with the default decision';
COMMENT ON FUNCTION dof_chunk(text, integer, integer, text, text, text, jsonb) IS
    'Chunks of a markdown document by a strategy (dof_chunk_strategies(); default pattern, with options as a collection''s chunker_options), none over max_tokens tokens of the model''s tokenizer (model NULL: the default model; '''' or a hash model: characters; the semantic strategy embeds sentences with the model); overlap_tokens (pattern: plain_text only) is capped at max_tokens / 4; char_start/char_end are 0-based, end exclusive: substr(doc, char_start + 1, char_end - char_start)';
COMMENT ON FUNCTION dof_chunk_internal(text, integer, integer, text, dof_models, text, jsonb) IS 'Internal: use dof_chunk';
COMMENT ON FUNCTION dof_chunk_semantic(text, text, double precision, integer, integer, integer, integer, text, text) IS
    'Semantic chunks: cut where what precedes a gap stops being similar to what follows (threshold_type percentile, standard_deviation, interquartile or gradient; threshold_amount NULL: 75, 3, 1.5, 95); buffer_size units on each side; groups under min_tokens merge; max_tokens is a hard limit (an oversized group is cut at its weakest similarity); overlap_sentences within the limit; unit paragraph (markdown blocks, a block over the limit by sentences) or sentence. Sentence vectors are cached per backend (dof_sentence_cache())';
COMMENT ON FUNCTION dof_chunk_paragraphs(text[], text, integer, integer, jsonb, integer, text) IS
    'Paragraph chunks (chunk_paragraphs): paragraphs over max_chars cut at sentence ends, short ones merged forward to min_chars; chunk_id {source_id}#{index}; metadata is the given object plus para_count, or split: true; first_paragraph/last_paragraph are array subscripts; with max_tokens no chunk exceeds it in the model''s tokenizer (model NULL: the default model)';
COMMENT ON FUNCTION dof_chunk_paragraphs_internal(text[], text, integer, integer, jsonb, integer, text) IS 'Internal: use dof_chunk_paragraphs';
COMMENT ON FUNCTION dof_chunk_strategies() IS 'The chunking strategies a collection''s chunker (and dof_chunk''s strategy) can name, with the settings each accepts in chunker_options';
COMMENT ON FUNCTION dof_check_chunker(text, jsonb) IS 'True when the strategy exists and accepts the options; otherwise an ERROR (22023) saying why (the CHECK on dof_collections)';
