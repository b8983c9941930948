-- A document's table of contents (a DOF edition's CONTENIDO and ÍNDICE, a NOM's list of
-- its sections) names what every question about the document asks for and answers none of
-- them: both search legs leave its chunks out (they stay stored, and a SELECT reads them).
-- The rule is the core's (dof_core::contents): the path first, the text only when the path
-- names a table of contents (CASE: a chunk's content is not read for every candidate).
CREATE FUNCTION dof_contents(heading_path text[], content text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN dof_contents_path(heading_path) THEN dof_listing(content) ELSE false END;
COMMENT ON FUNCTION dof_contents(text[], text) IS 'Whether a chunk is a table of contents (its heading path names one, ÍNDICE, Contenido, Sumario..., and its text is a listing): the search legs leave such chunks out';
COMMENT ON FUNCTION dof_contents_path(text[]) IS 'Whether a heading path puts a chunk in a table of contents: its last heading, the one it sits under, is ÍNDICE, Contenido, Tabla de contenido, Sumario, Table of contents... (any case, with or without accents)';
COMMENT ON FUNCTION dof_listing(text) IS 'Whether a text is a listing: at least three lines, three in four of them list items, headings, page numbers, titles with dot leaders or lines of up to eight words (a bold line is no list item, a table row no short line)';
