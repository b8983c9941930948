-- dof_contents as it was before dof_paged_listing (quality_paged_listing.sql,
-- quality_paged_listing_corpora.sql): an index under any heading was three in four lines
-- ending in dot leaders (dof_dotted_listing), every other line an entry but headings,
-- table rows and page numbers.
CREATE FUNCTION pg_temp.dotted_listing(content text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $f$
    WITH entries AS (SELECT btrim(line) AS line FROM regexp_split_to_table(content, '\n') AS line
                     WHERE btrim(line) <> '' AND btrim(line) !~ '^[#|]' AND btrim(line) !~ '^[0-9]+$'),
         titles AS (SELECT substring(line FROM '^(.*?)\.{4,}[0-9[:space:]]*$') AS title FROM entries)
    SELECT count(title) > 0 AND count(title) * 4 >= count(*) * 3
           AND sum(cardinality(regexp_split_to_array(btrim(title), '[[:space:]]+'))) >= count(title) * 5
    FROM titles
$f$;
CREATE FUNCTION pg_temp.contents_before(heading_path text[], content text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $f$
    SELECT coalesce(CASE WHEN dof_contents_path(heading_path) THEN dof_listing(content)
                         ELSE pg_temp.dotted_listing(content) OR dof_outline(content) END, false)
$f$;
