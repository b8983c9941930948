-- The data: collections, documents, chunks and the queue. What keeps chunks current is in
-- ingest.sql.

CREATE TABLE dof_collections (
    name               text PRIMARY KEY,
    model              text NOT NULL DEFAULT 'multilingual-e5-small' REFERENCES dof_models (name) ON UPDATE CASCADE,
    late_chunking      boolean NOT NULL DEFAULT true,
    max_tokens         integer NOT NULL DEFAULT 800 CHECK (max_tokens >= 16),
    overlap_tokens     integer NOT NULL DEFAULT 50 CHECK (overlap_tokens >= 0),
    text_search_config regconfig NOT NULL DEFAULT 'spanish',
    deferred           boolean NOT NULL DEFAULT false,
    chunker            text NOT NULL DEFAULT 'pattern',
    chunker_options    jsonb NOT NULL DEFAULT '{}',
    -- raises 22023 naming the strategies or settings it accepts
    CONSTRAINT dof_collections_chunker_check CHECK (dof_check_chunker(chunker, chunker_options))
);
INSERT INTO dof_collections (name) VALUES ('default');
SELECT pg_catalog.pg_extension_config_dump('dof_collections', 'WHERE name <> ''default''');

CREATE TABLE dof_documents (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    collection text NOT NULL DEFAULT 'default' REFERENCES dof_collections (name) ON UPDATE CASCADE,
    source_id  text NOT NULL,
    title      text,
    body       text NOT NULL,
    metadata   jsonb NOT NULL DEFAULT '{}',
    pattern    text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (collection, source_id)
);
SELECT pg_catalog.pg_extension_config_dump('dof_documents', '');
SELECT pg_catalog.pg_extension_config_dump('dof_documents_id_seq', '');

-- The embedding column is vector(384), the default model's dimension: one HNSW index serves
-- every collection. A collection whose model has another dimension is refused (see
-- dof_index_document).
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
    embedding       vector(384),
    tsv             tsvector NOT NULL,
    model           text NOT NULL,
    chunker_version text NOT NULL,
    sizer           text NOT NULL,
    chunker         text NOT NULL DEFAULT 'pattern',
    UNIQUE (document_id, chunk_index)
);
-- ef_construction 128 rather than pgvector's 64: e5 embeddings crowd into a narrow cone
-- (cosine similarities mostly 0.7-0.9) and the corpora hold near-duplicates, so a denser
-- graph was worth its doubled build time in recall (bench/sql/scale_search.sql; m 32 was
-- slower for the same recall).
CREATE INDEX dof_chunks_embedding_idx ON dof_chunks USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 128);
CREATE INDEX dof_chunks_tsv_idx ON dof_chunks USING gin (tsv);
CREATE INDEX dof_chunks_metadata_idx ON dof_chunks USING gin (metadata jsonb_path_ops);
CREATE INDEX dof_chunks_collection_idx ON dof_chunks (collection);
SELECT pg_catalog.pg_extension_config_dump('dof_chunks', '');
SELECT pg_catalog.pg_extension_config_dump('dof_chunks_id_seq', '');

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

COMMENT ON TABLE dof_collections IS 'Per-collection settings: embedding model, late or independent embedding, chunking strategy (chunker, chunker_options) and limits, text search configuration, deferred indexing';
COMMENT ON TABLE dof_documents IS 'Markdown documents; inserting, updating or deleting one keeps its chunks current (triggers)';
COMMENT ON TABLE dof_chunks IS 'Chunks of dof_documents with their embedding (HNSW, cosine) and tsvector (GIN); model, chunker and chunker_version record their producer';
COMMENT ON TABLE dof_queue IS 'Documents of deferred collections waiting for dof_process_queue, with failures and their errors';
