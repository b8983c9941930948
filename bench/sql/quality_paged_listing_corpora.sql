-- What the index rule leaves out of every shared corpus file, before and after
-- dof_paged_listing (quality_paged_listing.sql measures the answers): each file chunked as
-- dof_chunk does by default (800 tokens), each chunk told by today's dof_contents and by
-- the earlier rule (paged_listing_before.sql). Prints the chunks per corpus, and every
-- chunk the two rules tell apart. On any database with pg_dof, as a superuser (the files
-- are read with pg_read_file), given a list of the files:
--   find "${PG_DOF_CORPORA:-../shared/corpora}" -name '*.md' | sort | xargs realpath > /tmp/files
--   psql -d pg_dof_quality_mixed -v files=/tmp/files -f bench/sql/quality_paged_listing_corpora.sql
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
\ir paged_listing_before.sql
CREATE TEMP TABLE corpus_files (path text);
\set copy '\\copy corpus_files FROM ' :'files'
:copy
CREATE TEMP TABLE corpus_chunks AS
SELECT f.path, c.chunk_index, c.content, dof_contents(c.heading_path, c.content) AS after,
       pg_temp.contents_before(c.heading_path, c.content) AS before
FROM corpus_files f, dof_chunk(pg_read_file(f.path)) c;
SELECT substring(path FROM '/corpora/([^/]+/[^/]+)') AS corpus, count(*) AS chunks,
       count(*) FILTER (WHERE before) AS "left out before", count(*) FILTER (WHERE after) AS "after",
       count(*) FILTER (WHERE after AND NOT before) AS added, count(*) FILTER (WHERE before AND NOT after) AS dropped
FROM corpus_chunks GROUP BY 1 ORDER BY 1;
SELECT substring(path FROM '/corpora/(.*)$') AS file, chunk_index, after AS "left out now",
       left(regexp_replace(content, '[[:space:]]+', ' ', 'g'), 120) AS text
FROM corpus_chunks WHERE after <> before ORDER BY 1, 2;
