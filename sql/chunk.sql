COMMENT ON FUNCTION dof_classify(text, integer, double precision, integer, integer, integer) IS
    'Structural pattern of a markdown document: small, h2_compound, bold_headers, plain_text or giant_table (seed 000 rules; thresholds are parameters)';
COMMENT ON FUNCTION dof_classify_features(text) IS
    'The features behind dof_classify (bytes, non-empty lines, table lines and ratio, H2 headings, bold lines) with the default decision';
COMMENT ON FUNCTION dof_chunk(text, integer, integer, text, text) IS
    'Pattern-specific chunks of a markdown document, none over max_tokens tokens of the model''s tokenizer (model NULL: pg_dof.default_model; '''': characters); overlap_tokens (plain_text only) is capped at max_tokens / 4; char_start/char_end are 0-based, end exclusive: substr(doc, char_start + 1, char_end - char_start)';
