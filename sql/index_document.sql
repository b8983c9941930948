-- Documents in, chunks out: dof_index_document chunks, embeds and stores one document's
-- chunks (the triggers, the queue and a restore's import call it), and the tsvector every
-- stored chunk gets.

-- Numbers however they are typed, zeros first or not: the Nº 092-2002-EF of a decree, the
-- 0004 of an ordinance and the 08 of "08 de abril" are also indexed as 92, 4 and 8, at the
-- same positions (so neighbouring words stay neighbours). The query is read as typed: "ds
-- 92 2002 ef" finds the decree, and "0004" still matches only 0004 (stripped on the
-- query's side too, it matched every 4 and a padded number lost its rarity: an ordinance
-- "nro 0004" fell out of the first ten). A tsvector has no constructor with positions but
-- its text form, so the variants are written out and read back (a chunk's tsvector in
-- 1.7-1.9x the time, 0.14-0.26 ms more per chunk; only chunks holding such a number).
-- Typed without their zeros, the mixed set's 194 questions with a padded number found
-- their passage at hybrid MRR@10 0.900 -> 0.967, every question as typed unchanged
-- (docs/measurements.md, "Numbers typed without their zeros").
CREATE FUNCTION dof_number_variants(tsv tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN NOT EXISTS (SELECT 1 FROM unnest(tsv) u WHERE u.lexeme ~ '^0+[0-9]+$') THEN tsv ELSE
        (SELECT string_agg('''' || replace(replace(e.lexeme, '\', '\\'), '''', '''''') || '''' || coalesce(':' || e.positions, ''), ' ')::tsvector
         FROM (SELECT CASE WHEN variant THEN regexp_replace(u.lexeme, '^0+([0-9])', '\1') ELSE u.lexeme END AS lexeme,
                      (SELECT string_agg(p.position || p.weight, ',') FROM unnest(u.positions, u.weights) AS p(position, weight)) AS positions
               FROM unnest(tsv) u, (VALUES (false), (true)) AS v(variant)
               WHERE NOT variant OR u.lexeme ~ '^0+[0-9]+$') e)
    END;
COMMENT ON FUNCTION dof_number_variants(tsvector) IS 'A tsvector with each number written with leading zeros also as the number without them, at the same positions and weights (0092 also as 92): what dof_chunk_tsvector stores, so a number typed without its zeros matches';

-- What the text leg searches: the heading path and the document's identifier (the
-- metadata's "identifier", which YAML front matter such as legalize-pe's gives: DS-092-2002-EF,
-- a form the body itself may not spell) weighted A (a match there ranks higher), the content
-- B, numbers also without their leading zeros (dof_number_variants). A function of its
-- own so bulk loads and rebuilds make the same tsvector.
CREATE FUNCTION dof_chunk_tsvector(config regconfig, heading_path text[], content text, metadata jsonb) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN dof_number_variants(setweight(to_tsvector(config, array_to_string(heading_path || (metadata ->> 'identifier'), ' ')), 'A')
                               || setweight(to_tsvector(config, content), 'B'));

-- (Re)builds the chunks of one document: chunk by its collection's strategy with its stored
-- pattern, embed (late or independent per the collection), store the chunks and their
-- passages (dof_passages) — one Rust call for the first two. Runs as the caller, in the
-- caller's transaction. The one function that builds chunks (dof_shard_import copies
-- chunks another shard built; regress 01 lists the writers).
CREATE FUNCTION dof_index_document(doc_id bigint) RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    doc dof_documents;
    coll dof_collections;
    model_row dof_models;
    stored integer;
    passage_chunks bigint[];
    passage_numbers integer[];
    passage_starts integer[];
    passage_ends integer[];
    passage_tokens integer[];
    passage_vectors vector[];
BEGIN
    -- The row lock orders this with concurrent writers of the same document: a queue
    -- drainer reads the newest committed body and metadata, and a writer that comes later
    -- waits, then updates the chunks written here (or queues the document again).
    SELECT * INTO doc FROM dof_documents WHERE id = doc_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'document % does not exist', doc_id USING ERRCODE = 'no_data_found';
    END IF;
    SELECT * INTO coll FROM dof_collections WHERE name = doc.collection;
    model_row := dof_model(coll.model);
    DELETE FROM dof_chunks WHERE document_id = doc_id;  -- and their passages (ON DELETE CASCADE)
    -- The passages are stored by a second statement: dof_passages' INSERT policy checks that
    -- the caller sees the passage's chunk, and a statement's checks do not see the rows its
    -- own CTEs inserted.
    WITH built AS MATERIALIZED (
        SELECT * FROM dof_chunk_passages_internal(doc.body, doc.pattern, coll, model_row)
    ), chunks AS (
        INSERT INTO dof_chunks (document_id, collection, chunk_index, pattern, heading_path, content, token_count,
                                char_start, char_end, table_piece, overlap, split, metadata, embedding, tsv,
                                model, chunker_version, sizer, chunker)
        SELECT doc.id, doc.collection, c.chunk_index, c.pattern, c.heading_path, c.content, c.token_count,
               c.char_start, c.char_end, c.table_piece, c.overlap, c.split, doc.metadata, c.embedding,
               dof_chunk_tsvector(coll.text_search_config, c.heading_path, c.content, doc.metadata),
               model_row.name || '@' || model_row.revision, dof_chunker_version(), c.sizer, c.chunker
        FROM built c
        RETURNING id, chunk_index
    )
    SELECT (SELECT count(*) FROM chunks), array_agg(s.id), array_agg(p.n::integer - 1), array_agg(p.char_start),
           array_agg(p.char_end), array_agg(p.token_count),
           array_agg(dof_passage_vector(b.passage_embeddings, cardinality(b.passage_starts), p.n::integer))
    INTO stored, passage_chunks, passage_numbers, passage_starts, passage_ends, passage_tokens, passage_vectors
    FROM chunks s JOIN built b ON b.chunk_index = s.chunk_index,
         unnest(b.passage_starts, b.passage_ends, b.passage_tokens) WITH ORDINALITY AS p(char_start, char_end, token_count, n);
    INSERT INTO dof_passages (chunk_id, passage, char_start, char_end, token_count, embedding)
    SELECT * FROM unnest(passage_chunks, passage_numbers, passage_starts, passage_ends, passage_tokens, passage_vectors);
    RETURN stored;
END
$$;

-- The n-th (1-based) of `passages` vectors laid one after another in `vectors`, as
-- dof_chunk_passages_internal returns them (pgrx returns no array of vectors).
CREATE FUNCTION dof_passage_vector(vectors real[], passages integer, n integer) RETURNS vector
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (vectors[(n - 1) * (cardinality(vectors) / passages) + 1 : n * (cardinality(vectors) / passages)])::vector;

COMMENT ON FUNCTION dof_chunk_tsvector(regconfig, text[], text, jsonb) IS 'The tsvector stored for a chunk: heading path and the metadata''s identifier weighted A, content B, in the given text search configuration, numbers also without their leading zeros (dof_number_variants)';
COMMENT ON FUNCTION dof_index_document(bigint) IS 'Rebuilds one document''s chunks and their passages (the one function that builds them; dof_shard_import copies a shard''s): chunk by the collection''s strategy, embed, store; returns the number of chunks';
COMMENT ON FUNCTION dof_passage_vector(real[], integer, integer) IS 'Internal: the n-th of several vectors laid one after another in one array (how dof_chunk_passages_internal returns a chunk''s passage vectors)';
COMMENT ON FUNCTION dof_chunker_version() IS 'Version of the chunking rules; stored on every chunk so re-chunking can target older ones';
COMMENT ON FUNCTION dof_chunk_passages_internal(text, text, dof_collections, dof_models) IS 'Internal: chunks a document by its collection''s strategy, cuts the chunks into passages and embeds them with the model (one call); dof_index_document stores the rows';
