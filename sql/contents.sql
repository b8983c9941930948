-- A document's table of contents (a DOF edition's CONTENIDO and ÍNDICE, a NOM's list of
-- its sections) names what every question about the document asks for and answers none of
-- them: both search legs leave its chunks out (they stay stored, and a SELECT reads them).
-- The rule is the core's (dof_core::contents::is_contents, as dof_contents, in one call
-- that reads a chunk's text once): a listing under a heading that names a table of
-- contents, or under any heading titles led to their pages, by dot leaders or in a table's
-- last column (docling and marker render an edition's closing index under its ministries'
-- headings) or a law's outline (a Peruvian law's index sits under a bold ÍNDICE, which is
-- no heading). Its parts are functions too. Each chunk holds its answer, written when it is
-- stored (dof_chunks.contents), so that a search does not read its candidates' text.
COMMENT ON FUNCTION dof_contents(text[], text) IS 'Whether a chunk is a table of contents (its heading path names one, ÍNDICE, Contenido, Sumario..., and its text is a listing; or, under any heading, three in four of its lines are titles led to their pages, or it is a law''s outline): the search legs leave such chunks out; NULLs are none';
COMMENT ON FUNCTION dof_contents_path(text[]) IS 'Whether a heading path puts a chunk in a table of contents: its last heading, the one it sits under, is ÍNDICE, Contenido, Tabla de contenido, Sumario, Table of contents... (any case, with or without accents)';
COMMENT ON FUNCTION dof_listing(text) IS 'Whether a text is a listing: at least three lines, three in four of them list items, headings, page numbers, titles with dot leaders or lines of up to eight words (a bold line is no list item, a table row no short line)';
COMMENT ON FUNCTION dof_paged_listing(text) IS 'Whether a text is a table of contents under any heading, an index of titles led to their pages: three in four of its entries (a line, or the lines up to one with dot leaders, or a table row; headings, lines without a letter and table rows with only a first cell are none) end in dot leaders or are table rows of a title and its page with only empty cells between, the rows'' pages in order, in a table whose header row names no columns; five words or more a title on average (not a form''s blank fields nor a table''s figures)';
COMMENT ON FUNCTION dof_outline(text) IS 'Whether a text is a law''s outline under any heading: at least six lines, at least six and one in four of them division labels (Artículo, Capítulo, Título, Sección, Libro, Parte, Anexo, Disposición, Norma; up to 24 words), at most 16 words per label, and at most one line of prose (over 16 words, ending in . ; : or ,) holding at most a tenth of the words';
COMMENT ON FUNCTION dof_contents_margin() IS 'How many candidates past the k wanted each search leg ranks before it leaves out the tables of contents among them (dof_chunks.contents; for a chunk stored before 0.3.0, dof_contents reads its text: only those are read); a leg returns fewer than k only when more than this many of its best are tables of contents';
