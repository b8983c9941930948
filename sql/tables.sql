-- The data: collections, documents, chunks and the queue. What keeps chunks current is in
-- index_document.sql, document_triggers.sql, term_stats.sql and queue.sql.

-- Spanish as people type it: accents are optional ("resolucion miscelanea" finds
-- "resolución miscelánea", and the reverse). unaccent (PostgreSQL's contrib) strips them
-- before the Spanish stemmer; the stored tsvectors (dof_chunk_tsvector) and the queries
-- (the text leg) both use the collection's text_search_config, so both sides agree.
CREATE TEXT SEARCH CONFIGURATION dof_spanish (COPY = pg_catalog.spanish);
ALTER TEXT SEARCH CONFIGURATION dof_spanish
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH unaccent, spanish_stem;
-- Identifiers as people type them: PostgreSQL's parser reads the numbers of
-- NOM-035-STPS-2018 or DS-092-2002-EF as the signed integers -035 and -2002, and a user
-- who types "nom 035 stps 2018" asks for 035. dict_int (contrib) with absval drops the
-- sign on both sides; maxlen 32 keeps long file numbers whole (its default cuts at 6).
CREATE TEXT SEARCH DICTIONARY dof_integer (TEMPLATE = intdict_template, MAXLEN = 32, ABSVAL = true);
COMMENT ON TEXT SEARCH DICTIONARY dof_integer IS
    'Integers without their sign (dict_int, absval): the -035 of NOM-035-STPS-2018 is indexed and searched as 035';
ALTER TEXT SEARCH CONFIGURATION dof_spanish ALTER MAPPING FOR int, uint WITH dof_integer;
COMMENT ON TEXT SEARCH CONFIGURATION dof_spanish IS
    'Spanish without accents: unaccent, then the Spanish stemmer; numbers without their sign (dof_integer), so NOM-035-STPS-2018 and "nom 035 stps 2018" match (the default text_search_config of collections)';

CREATE TABLE dof_collections (
    name               text PRIMARY KEY,
    model              text NOT NULL DEFAULT 'multilingual-e5-small' REFERENCES dof_models (name) ON UPDATE CASCADE,
    late_chunking      boolean NOT NULL DEFAULT false,
    max_tokens         integer NOT NULL DEFAULT 800 CHECK (max_tokens >= 16),
    overlap_tokens     integer NOT NULL DEFAULT 50 CHECK (overlap_tokens >= 0),
    text_search_config regconfig NOT NULL DEFAULT 'dof_spanish',
    deferred           boolean NOT NULL DEFAULT false,
    chunker            text NOT NULL DEFAULT 'pattern',
    chunker_options    jsonb NOT NULL DEFAULT '{}',
    -- raises 22023 naming the strategies or settings it accepts
    CONSTRAINT dof_collections_chunker_check CHECK (dof_check_chunker(chunker, chunker_options)),
    -- the most tokens of one passage, what the vector leg ranks by (dof_passages below);
    -- last, as ALTER TABLE ... ADD COLUMN put it in a database updated from 0.2.0
    passage_tokens     integer NOT NULL DEFAULT 120 CHECK (passage_tokens >= 16)
);
INSERT INTO dof_collections (name) VALUES ('default');
-- every row, 'default' included (a restored row replaces the one CREATE EXTENSION made:
-- dof_collections_restore in restore.sql)
SELECT pg_catalog.pg_extension_config_dump('dof_collections', '');

-- A body's content hash: SHA-256 of its UTF-8 bytes, in hex, the same digest the loader
-- computes in Rust before sending a file (a rerun skips what the column already holds).
-- IMMUTABLE for the generated column below, which is true of a database: convert_to is
-- STABLE only because a conversion could in principle be redefined, and UTF8 to UTF8 is none.
CREATE FUNCTION dof_content_hash(body text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN encode(sha256(convert_to(body, 'UTF8')), 'hex');

CREATE TABLE dof_documents (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    collection text NOT NULL DEFAULT 'default' REFERENCES dof_collections (name) ON UPDATE CASCADE,
    source_id  text NOT NULL,
    title      text,
    body       text NOT NULL,
    -- an object: front matter's fields are merged into it (`||` with a string or array made
    -- an array), and searches filter it by containment of an object
    metadata   jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    pattern    text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- last, as ALTER TABLE ... ADD COLUMN put it in a database updated from 0.2.0
    content_sha256 text NOT NULL GENERATED ALWAYS AS (dof_content_hash(body)) STORED,
    UNIQUE (collection, source_id)
);
SELECT pg_catalog.pg_extension_config_dump('dof_documents', '');
SELECT pg_catalog.pg_extension_config_dump('dof_documents_id_seq', '');

-- The embedding column has no fixed dimension, so a collection can use any registered
-- model. An HNSW index needs one, so each dimension gets its own partial expression index
-- (pgvector's documented way to index vectors of several dimensions in one column):
-- dof_vector_index() below; the vector leg's query names the same expression.
CREATE TABLE dof_chunks (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id     bigint NOT NULL REFERENCES dof_documents (id) ON DELETE CASCADE,
    collection      text NOT NULL,
    chunk_index     integer NOT NULL,
    pattern         text NOT NULL,
    heading_path    text[] NOT NULL,
    content         text NOT NULL,
    token_count     integer NOT NULL,
    char_start      integer NOT NULL,
    char_end        integer NOT NULL,
    table_piece     boolean NOT NULL,
    overlap         boolean NOT NULL,
    split           boolean NOT NULL,
    metadata        jsonb NOT NULL DEFAULT '{}',
    embedding       vector,
    tsv             tsvector NOT NULL,
    model           text NOT NULL,
    chunker_version text NOT NULL,
    sizer           text NOT NULL,
    chunker         text NOT NULL DEFAULT 'pattern',
    -- whether the chunk is a table of contents, which both search legs leave out: the
    -- rule's answer (dof_contents) when the chunk is stored, so that a search does not read
    -- its candidates' text to ask (vector leg 7.9 -> 5.5 ms on the mixed set's documents:
    -- bench/scripts/search_reads.sh); NULL for a chunk stored before 0.3.0, which the legs
    -- test as they read it. Last, as ALTER TABLE ... ADD COLUMN put it in a database
    -- updated from 0.2.0
    contents        boolean,
    UNIQUE (document_id, chunk_index)
);
CREATE INDEX dof_chunks_tsv_idx ON dof_chunks USING gin (tsv);
CREATE INDEX dof_chunks_metadata_idx ON dof_chunks USING gin (metadata jsonb_path_ops);
-- by collection, and within one by model: the models a collection's chunks hold are a few
-- index probes (dof_collection_chunk_models), which the vector leg reads on every search
CREATE INDEX dof_chunks_collection_model_idx ON dof_chunks (collection, model);
SELECT pg_catalog.pg_extension_config_dump('dof_chunks', '');
SELECT pg_catalog.pg_extension_config_dump('dof_chunks_id_seq', '');

-- What the vector leg searches: each chunk's passages, pieces of at most its collection's
-- passage_tokens tokens (a chunk within the limit is its own one passage), each with its
-- own vector; a chunk ranks by its best passage (dof_vector_search). A chunk's one vector
-- is a mean over hundreds of tokens, and a question is about a sentence or two of it: on
-- the shared sets the vector leg scored 0.517 -> 0.709 MRR@10 on the DOF questions
-- (120-token passages), 0.748 -> 0.816 on the English set (200; docs/measurements.md).
-- dof_index_document writes them with the chunks, and a chunk's deletion takes them.
-- Spans are in characters of the chunk's content (0-based, end exclusive).
CREATE TABLE dof_passages (
    chunk_id    bigint NOT NULL REFERENCES dof_chunks (id) ON DELETE CASCADE,
    passage     integer NOT NULL,
    char_start  integer NOT NULL,
    char_end    integer NOT NULL,
    token_count integer NOT NULL,
    embedding   vector NOT NULL,
    PRIMARY KEY (chunk_id, passage)
);
SELECT pg_catalog.pg_extension_config_dump('dof_passages', '');
-- A role reads the passages of the chunks it can read: row-level security on dof_chunks
-- carries over (the table owner is not subject to it), and a role writes passages only of
-- the chunks it can read (else a writer could attach a vector of its choosing to another
-- role's chunk and move it in that role's searches). Writers are the indexing functions,
-- run as their caller; a chunk's deletion removes its passages as the owner.
ALTER TABLE dof_passages ENABLE ROW LEVEL SECURITY;
CREATE POLICY dof_passages_follow_chunks ON dof_passages FOR SELECT
    USING (EXISTS (SELECT 1 FROM dof_chunks c WHERE c.id = dof_passages.chunk_id));
CREATE POLICY dof_passages_written_with_chunks ON dof_passages FOR INSERT
    WITH CHECK (EXISTS (SELECT 1 FROM dof_chunks c WHERE c.id = dof_passages.chunk_id));
COMMENT ON POLICY dof_passages_follow_chunks ON dof_passages IS
    'A role reads the passages of the chunks it can see in dof_chunks';
COMMENT ON POLICY dof_passages_written_with_chunks ON dof_passages IS
    'A role granted INSERT stores passages of the chunks it can see in dof_chunks (dof_index_document does, as its caller, after storing the chunks), not of another role''s';

-- The HNSW index of one embedding dimension, created when missing; returns its name.
-- The graph holds the vectors as halfvec (16-bit floats): 0.57 of vector's size (120,689
-- chunks of 384 dimensions: 131 instead of 229 MB), so more of a large corpus's index
-- stays in memory, and HNSW indexes up to 4000 dimensions instead of 2000. The stored
-- embeddings stay vector: the vector leg re-ranks the index's candidates by their float
-- distance (src/api/vector_search.rs), so distances and ties are exact. Speed within noise,
-- recall close (bench/scripts/index_kinds.sh, ef_search 400, 4 x 100 queries: recall@10
-- by ids 0.963 vs 0.964 on one query draw, 0.963 vs 0.976 on another; 0.956-0.963 over
-- three more halfvec builds).
-- ef_construction 256 rather than pgvector's 64: e5 embeddings crowd into a narrow cone
-- (cosine similarities mostly 0.7-0.9) and the corpora hold near-duplicates, so a denser
-- graph is worth its build time in recall (bench/scripts/vector_grid.sh, 120,689 chunks:
-- at ef_search 400, 128 gave recall@10 0.971 counting distance ties and 256 0.979, for a
-- build of 64 s instead of 45; m 24 was slower for the same recall).
CREATE FUNCTION dof_vector_index(dimension integer) RETURNS text
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    index_name text := 'dof_passages_embedding_' || dimension;
BEGIN
    IF dimension IS NULL OR dimension < 1 OR dimension > dof_hnsw_max_dimensions() THEN
        RAISE EXCEPTION 'HNSW indexes vectors of 1 to % dimensions (as halfvec), got %', dof_hnsw_max_dimensions(),
                        coalesce(dimension::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'vectors of more dimensions are searched without an index';
    END IF;
    IF to_regclass(index_name) IS NOT NULL THEN
        RETURN index_name;
    END IF;
    EXECUTE format('CREATE INDEX %I ON dof_passages USING hnsw ((embedding::halfvec(%s)) halfvec_cosine_ops) '
                   'WITH (m = 16, ef_construction = 256) WHERE vector_dims(embedding) = %s',
                   index_name, dimension, dimension);
    RETURN index_name;
END
$$;

-- Registering a model (or restoring dof_models with pg_restore) indexes its dimension.
-- Creating an index needs ownership of dof_passages; a registering role without it gets a
-- warning saying who can finish the job (no SECURITY DEFINER function in pg_dof).
CREATE FUNCTION dof_models_vector_index() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF NEW.dimension > dof_hnsw_max_dimensions() THEN
        RAISE NOTICE 'model "%" has % dimensions, over the % that HNSW indexes: its searches scan every chunk of that dimension',
                     NEW.name, NEW.dimension, dof_hnsw_max_dimensions();
    ELSE
        -- dof_vector_index returns at once when the index exists
        BEGIN
            PERFORM dof_vector_index(NEW.dimension);
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE WARNING 'no HNSW index for % dimensions yet: searches with model "%" scan every chunk of that dimension', NEW.dimension, NEW.name
                USING HINT = format('the owner of dof_passages can run SELECT dof_vector_index(%s)', NEW.dimension);
        END;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER dof_models_vector_index AFTER INSERT OR UPDATE OF dimension ON dof_models
    FOR EACH ROW EXECUTE FUNCTION dof_models_vector_index();
SELECT dof_vector_index(m.dimension) FROM (SELECT DISTINCT dimension FROM dof_models WHERE dimension <= dof_hnsw_max_dimensions()) m;

-- BM25's statistics per collection, exact: how many chunks hold each lexeme, and each
-- collection's chunk count and total length. Kept as signed deltas that statement
-- triggers on dof_chunks append (dof_chunks_stats, term_stats.sql), so concurrent writers
-- never wait on one another's counters; the sums are the counts. dof_compact_stats()
-- folds the deltas (dof_process_queue runs it); pg_dump leaves both tables out, and the
-- restored chunks' triggers rebuild them.
CREATE TABLE dof_term_stats (
    collection text NOT NULL,
    lexeme     text NOT NULL,
    chunks     bigint NOT NULL
);
CREATE INDEX dof_term_stats_lookup ON dof_term_stats (collection, lexeme) INCLUDE (chunks);
CREATE TABLE dof_collection_stats (
    collection text NOT NULL,
    chunks     bigint NOT NULL,
    tokens     bigint NOT NULL
);
CREATE INDEX dof_collection_stats_lookup ON dof_collection_stats (collection) INCLUDE (chunks, tokens);
COMMENT ON TABLE dof_term_stats IS 'BM25 document frequencies per collection as signed deltas (their sum per lexeme is the number of chunks holding it); read with dof_term_stats()';
COMMENT ON TABLE dof_collection_stats IS 'Chunk count and total token_count per collection as signed deltas; read with dof_collection_stats()';

CREATE TABLE dof_queue (
    document_id  bigint PRIMARY KEY REFERENCES dof_documents (id) ON DELETE CASCADE,
    status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'done', 'failed')),
    error        text,
    attempts     integer NOT NULL DEFAULT 0,
    queued_at    timestamptz NOT NULL DEFAULT now(),
    processed_at timestamptz
);
CREATE INDEX dof_queue_queued_idx ON dof_queue (queued_at) WHERE status = 'queued';
-- A role sees the queue rows (and their errors) of the documents it can see: row-level
-- security on dof_documents carries over. The table owner is not subject to it.
ALTER TABLE dof_queue ENABLE ROW LEVEL SECURITY;
CREATE POLICY dof_queue_follows_documents ON dof_queue
    USING (EXISTS (SELECT 1 FROM dof_documents d WHERE d.id = dof_queue.document_id));
COMMENT ON POLICY dof_queue_follows_documents ON dof_queue IS
    'A role sees the queue rows (and errors) of the documents it can see in dof_documents';
SELECT pg_catalog.pg_extension_config_dump('dof_queue', '');

-- The collection's settings, or the default collection's for NULL.
CREATE FUNCTION dof_collection(collection_name text DEFAULT NULL) RETURNS dof_collections
    LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
DECLARE
    found_collection dof_collections;
BEGIN
    SELECT * INTO found_collection FROM dof_collections WHERE name = coalesce(collection_name, 'default');
    IF NOT FOUND AND collection_name IS NULL THEN
        -- renamed (dof_documents follow a new name) or deleted: it said collection "<NULL>"
        RAISE EXCEPTION 'no collection was named, and the default collection "default" does not exist'
            USING ERRCODE = 'undefined_object',
                  HINT = 'name a collection (SELECT name FROM dof_collections lists them), or create one named "default": INSERT INTO dof_collections (name) VALUES (''default'')';
    ELSIF NOT FOUND THEN
        RAISE EXCEPTION 'collection "%" does not exist', collection_name
            USING ERRCODE = 'undefined_object', HINT = 'SELECT name FROM dof_collections lists them';
    END IF;
    RETURN found_collection;
END
$$;

COMMENT ON TABLE dof_collections IS 'Per-collection settings: embedding model, late or independent embedding, chunking strategy (chunker, chunker_options) and limits, text search configuration, deferred indexing';
COMMENT ON TABLE dof_documents IS 'Markdown documents; inserting, updating or deleting one keeps its chunks current (triggers)';
COMMENT ON COLUMN dof_documents.content_sha256 IS 'The body''s SHA-256 (dof_content_hash), kept by PostgreSQL: what dof_put_document and dof load compare to leave an unchanged document alone';
COMMENT ON FUNCTION dof_content_hash(text) IS 'SHA-256 of a text''s UTF-8 bytes, in hex: dof_documents.content_sha256, and the digest dof load computes before sending a file';
COMMENT ON TABLE dof_chunks IS 'Chunks of dof_documents with their embedding (the mean of their passages'' vectors, dof_passages) and tsvector (GIN); model, chunker and chunker_version record their producer';
COMMENT ON COLUMN dof_chunks.contents IS 'Whether the chunk is a table of contents (dof_contents(heading_path, content), when it was stored), which both search legs leave out; NULL for a chunk stored before 0.3.0, tested when a search reads it';
COMMENT ON TABLE dof_passages IS 'What the vector leg searches: each chunk''s passages of at most its collection''s passage_tokens tokens (char_start, char_end in the chunk''s content), each with its vector (any dimension; one HNSW cosine index per dimension, dof_vector_index); a chunk ranks by its best passage';
COMMENT ON COLUMN dof_collections.passage_tokens IS 'The most tokens of one passage (dof_passages): chunks are cut into passages of at most this many, each embedded, and the vector leg ranks a chunk by its best; a value over max_tokens gives one passage per chunk. Late-chunked collections keep one passage per chunk';
COMMENT ON FUNCTION dof_hnsw_max_dimensions() IS 'The most dimensions an HNSW index takes (pgvector on halfvec): models over it are searched by scanning every chunk of their dimension';
COMMENT ON FUNCTION dof_vector_index(integer) IS 'Creates (if missing) the HNSW cosine index of one embedding dimension on dof_passages: a partial expression index on embedding::halfvec(dimension) (the vector leg re-ranks its candidates by the float distance); returns its name';
COMMENT ON FUNCTION dof_models_vector_index() IS 'Trigger: a registered model''s dimension gets its HNSW index (dof_vector_index)';
COMMENT ON TABLE dof_queue IS 'Documents of deferred collections waiting for dof_process_queue, with failures and their errors';
COMMENT ON SEQUENCE dof_documents_id_seq IS 'dof_documents.id (identity); on a shard it steps by max_shards from the shard''s number (dof_shard_configure), so ids are unique across shards';
COMMENT ON SEQUENCE dof_chunks_id_seq IS 'dof_chunks.id (identity); on a shard it steps by max_shards from the shard''s number (dof_shard_configure), so ids are unique across shards';
COMMENT ON FUNCTION dof_collection(text) IS 'The dof_collections row of a collection; NULL means ''default'' (42704, naming which, when it does not exist)';
