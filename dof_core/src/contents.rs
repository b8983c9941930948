//! A document's table of contents: the chunks that list what the document holds.
//!
//! A DOF edition opens with `CONTENIDO` and closes with `ÍNDICE`, which name every notice
//! it publishes; a NOM lists its own sections. Such a chunk holds the words of every
//! question about the document and answers none of them: on the DOF set it came first in
//! both legs for questions whose answer was the notice it lists. The search legs leave
//! these chunks out (`dof_contents`, sql/contents.sql); they stay stored, and readable.
//!
//! A chunk is a table of contents ([`is_contents`]) when the heading it sits under names
//! one ([`is_contents_path`]) and its lines are a listing ([`is_listing`]). Only its own
//! heading counts: a PDF rendition of an edition (pymupdf4llm) puts every notice under an
//! H1 `CONTENIDO`, whose ministries are H2s; and the second test keeps searchable a
//! document whose only heading is "Índice" but whose body is prose. Under any heading, an
//! index of titles led to their pages ([`is_paged_listing`]) and a law's outline
//! ([`is_outline`]: its divisions' labels, no prose) are tables of contents too.

use std::borrow::Cow;

/// How many candidates past the `k` wanted each search leg ranks before it leaves out the
/// tables of contents among them: a chunk holds the answer (`dof_chunks.contents`), but one
/// stored before 0.3.0 has its text read to tell (its content, stored apart by TOAST), which
/// for every candidate the index or the text match yields cost the vector leg more than
/// half its time; a document has a few such chunks (a DOF edition two to four), so a leg
/// returns fewer than `k` only when more than this many of its best are.
pub const SEARCH_MARGIN: usize = 10;

/// Whether a chunk is a table of contents, the rule the search legs apply: under a heading
/// that names one ([`is_contents_path`]), a listing ([`is_listing`]); under any other,
/// an index of titles and their pages ([`is_paged_listing`]) or a law's outline ([`is_outline`]).
/// One call reads the chunk's text once: PostgreSQL detoasts a value for each function it
/// is passed to, and the search legs ask this of up to 110 candidates each.
pub fn is_contents<S: AsRef<str>>(heading_path: &[S], content: &str) -> bool {
    if is_contents_path(heading_path) {
        is_listing(content)
    } else {
        is_paged_listing(content) || is_outline(content)
    }
}

/// Whether a chunk's heading path puts it in a table of contents: the heading it sits
/// under, its last, names one ([`is_contents_heading`]).
pub fn is_contents_path<S: AsRef<str>>(heading_path: &[S]) -> bool {
    heading_path.last().is_some_and(|heading| is_contents_heading(heading.as_ref()))
}

/// Whether a heading names a table of contents: `ÍNDICE`, `Contenido`, `Tabla de
/// contenido(s)`, `Sumario`, `Table of contents`, `Contents`, with or without accents,
/// markup (`**`, `_`) or a trailing colon or full stop, in any case.
pub fn is_contents_heading(heading: &str) -> bool {
    const NAMES: [&str; 11] = [
        "índice",
        "indice",
        "índice general",
        "indice general",
        "contenido",
        "tabla de contenido",
        "tabla de contenidos",
        "sumario",
        "table of contents",
        "contents",
        "index",
    ];
    let name = heading
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, '#' | '*' | '_' | ':' | '.'))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    NAMES.contains(&name.as_str())
}

/// Whether a chunk's text is a listing: at least three non-blank lines, and at least
/// three in four of them list items (`* `, `- `, `+ `, `1. `, `1) `), headings, page
/// numbers, titles with dot leaders (`Acuerdo ... ........ 5`) or short lines (up to eight
/// words): what a table of contents is made of, and prose is not. A bold line (`**...`) is
/// no list item, nor is a table row a short line.
pub fn is_listing(content: &str) -> bool {
    let lines: Vec<&str> = content.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let listed = lines.iter().filter(|l| is_listing_line(l)).count();
    lines.len() >= 3 && listed * 4 >= lines.len() * 3
}

/// Whether a chunk's text is a table of contents whatever heading it sits under: an index
/// of titles led to their pages. At least three in four of its entries are titles, five
/// words or more on average, each ending in dot leaders, with or without its page number
/// (`Convenio ... con el Estado de Querétaro. ........ 12`), or set as a table row whose
/// last cell is its page, with nothing between (`| Convenio ... de Sonora. | | 20 |`), the
/// rows' pages in order. An entry is a line, or the lines up to one with leaders (a title
/// a PDF converter wrapped, as pymupdf4llm does), or a table row; headings, lines without a
/// letter (page numbers, a converter's page markers `{401}-----` and rules `**_____**`) and
/// table rows with only a first cell (a ministry's name, a title's second line) are none.
/// A table whose header row (the row before its `|---|`) names columns is data, not an
/// index: `| Trámite | Plazo en días |` over rows of steps and their days in order; the
/// converters' index tables have no column names, their first title is the header row.
/// docling renders a DOF edition's closing ÍNDICE as `## INDICE PODER EJECUTIVO` followed
/// by each ministry's H2 and its notices' titles with leaders, and marker partly as tables
/// of titles and pages, so the chunks of the index sit under the ministries; a form's blank
/// fields (`Nombre: ..........`) and a table's figures are no titles.
pub fn is_paged_listing(content: &str) -> bool {
    // the entries read, the titles among them and the titles' words
    let (mut entries, mut titles, mut words) = (0, 0, 0);
    // the words of the lines read since the last entry ended: a title wrapped over them
    // ends at the line with its leaders; a blank line, a heading or a table ends any
    let mut wrapped = None;
    let mut last_page = 0;
    // whether the last table row could name columns (cells past the first, no title), and
    // whether the table being read has a header that did: its rows are data
    let (mut names_columns, mut named_columns) = (false, false);
    for line in content.lines().map(str::trim) {
        let row = line.starts_with('|');
        if line.is_empty() || line.starts_with('#') || row {
            entries += usize::from(wrapped.take().is_some());
        }
        if !row {
            (names_columns, named_columns) = (false, false);
        } else if line.chars().all(|c| matches!(c, '|' | '-' | ':') || c.is_whitespace()) {
            // the separator: the row before it was the table's header
            named_columns = names_columns;
            continue;
        }
        if line.starts_with('#') || !line.chars().any(char::is_alphabetic) {
            continue;
        }
        if row {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            names_columns = false;
            if cells.iter().skip(1).all(|cell| cell.is_empty()) {
                continue;
            }
            entries += 1;
            match paged_row(&cells) {
                // the pages of an index's rows run in order; a table's figures need not
                Some((title, page)) if page >= last_page && !named_columns => {
                    last_page = page;
                    titles += 1;
                    words += title.split_whitespace().count();
                }
                _ => names_columns = true,
            }
        } else if let Some(title) = before_leaders(line) {
            entries += 1;
            titles += 1;
            words += wrapped.take().unwrap_or(0) + title.split_whitespace().count();
        } else {
            wrapped = Some(wrapped.unwrap_or(0) + line.split_whitespace().count());
        }
    }
    entries += usize::from(wrapped.is_some());
    titles > 0 && titles * 4 >= entries * 3 && words >= titles * 5
}

/// Whether a chunk's text is a law's outline, a table of contents whatever heading it sits
/// under: at least six lines, at least six and one in four of them division labels
/// ([`is_division_label`]: `Artículo 27. Funciones de las Oficinas de Disciplina`,
/// `CAPÍTULO II`, `Título I: Obligaciones de dar`), at most sixteen words of text per label,
/// and at most one line of prose ([`is_prose_line`]) holding at most a tenth of its words.
/// Peruvian laws as SPIJ publishes them open with such an outline under a bold line
/// (`**ÍNDICE**`, `**Contenido**`), which is no heading, so [`is_contents_path`] cannot see
/// it; it runs to several chunks, each holding the titles of dozens of articles. The body
/// of a law has its articles' text between their labels (20 words a label and more), and
/// the chunk where an outline begins or ends holds the decree's own articles in prose:
/// neither is an outline.
pub fn is_outline(content: &str) -> bool {
    // First what reading the lines' first words tells: most chunks, prose or tables, have
    // too few lines that open with a division's name, and are told apart without counting
    // their words (the search legs ask this of every candidate they rank).
    let (mut lines, mut named) = (0, 0);
    for text in content.lines().map(outline_text).filter(|text| !text.is_empty()) {
        lines += 1;
        named += usize::from(names_division(&text));
    }
    if named < 6 || named * 4 < lines {
        return false;
    }
    let (mut words, mut labels, mut prose_lines, mut prose_words) = (0, 0, 0, 0);
    for text in content.lines().map(outline_text) {
        let count = text.split_whitespace().count();
        words += count;
        if prose(&text, count) {
            prose_lines += 1;
            prose_words += count;
            // a law's body has its articles' text in prose: its lines end the count early
            if prose_lines > 1 {
                return false;
            }
        }
        labels += usize::from(label(&text, count));
    }
    labels >= 6 && labels * 4 >= lines && words <= labels * 16 && prose_words * 10 <= words
}

/// A line's text without the markup around it: bold, italics, escapes, heading and quote
/// marks, table bars, dashes and a link's opening bracket trimmed from both ends (a link's
/// target, which holds no space, counts as part of its last word), and an HTML character
/// reference that opens it decoded (`&#8211; CAPÍTULO I`; one elsewhere counts as a word
/// either way).
fn outline_text(line: &str) -> Cow<'_, str> {
    let text = line.trim_matches(is_markup);
    if !text.starts_with('&') {
        return Cow::Borrowed(text);
    }
    match html_escape::decode_html_entities(text) {
        Cow::Owned(decoded) => Cow::Owned(decoded.trim_start_matches(is_markup).to_string()),
        borrowed => borrowed,
    }
}

fn is_markup(c: char) -> bool {
    c.is_whitespace() || matches!(c, '*' | '_' | '\\' | '#' | '>' | '|' | '-' | '–' | '—' | '[')
}

/// Whether a line labels a division of a law, as an outline lists them: it opens with
/// `Artículo`, `Capítulo`, `Título`, `Sección`, `Libro`, `Parte`, `Anexo`,
/// `Disposición` or `Norma` (any case, with or without accents, `Sub`-divisions too) and
/// holds at most 24 words.
pub fn is_division_label(line: &str) -> bool {
    label(line, line.split_whitespace().count())
}

/// Whether a line is prose: over sixteen words, ending as a sentence or a clause does
/// (`.`, `;`, `:`, `,`). An outline's long titles end in a word or an article range.
pub fn is_prose_line(line: &str) -> bool {
    prose(line, line.split_whitespace().count())
}

/// [`is_division_label`] of a line of `count` words.
fn label(line: &str, count: usize) -> bool {
    count <= 24 && names_division(line)
}

/// Whether a line's first word names a division of a law (`Artículo`, `CAPÍTULO`,
/// `Subcapítulo`, `Sub capítulo`, `SUB-TÍTULO`...).
pub(crate) fn names_division(line: &str) -> bool {
    // not `Art.`: SPIJ's record of a code's amendments lists `Art. 391` / `MODIFICADO por
    // el Artículo 1 de la Ley N° 29364` / its date, which answers questions
    const LABELS: [&str; 17] = [
        "artículo",
        "articulo",
        "artículos",
        "articulos",
        "capítulo",
        "capitulo",
        "título",
        "titulo",
        "sección",
        "seccion",
        "libro",
        "parte",
        "anexo",
        "disposición",
        "disposicion",
        "disposiciones",
        "norma",
    ];
    // every name starts with one of these: most lines are told apart without lowercasing
    if !line.starts_with(['A', 'a', 'C', 'c', 'T', 't', 'S', 's', 'L', 'l', 'P', 'p', 'D', 'd', 'N', 'n']) {
        return false;
    }
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else { return false };
    let first = first.to_lowercase();
    let name = match first.strip_prefix("sub") {
        Some("") => words.next().map(str::to_lowercase).unwrap_or_default(),
        Some(rest) => rest.trim_start_matches('-').to_string(),
        None => first,
    };
    LABELS.contains(&name.trim_end_matches(['.', ':', ',', ';', '-']))
}

/// [`is_prose_line`] of a line of `count` words.
fn prose(line: &str, count: usize) -> bool {
    count > 16 && line.ends_with(['.', ';', ':', ','])
}

/// The text of a line before the dot leaders it ends with (four dots or more, then at most
/// a page number), or `None` when it does not end so.
fn before_leaders(line: &str) -> Option<&str> {
    let unpaged = line.trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace());
    let text = unpaged.trim_end_matches('.');
    (unpaged.len() - text.len() >= 4).then_some(text)
}

/// A table row's title and page: its first cell, its last a page number (one to four
/// digits), and every cell between empty; `None` for any other row.
fn paged_row<'a>(cells: &[&'a str]) -> Option<(&'a str, u32)> {
    let (title, rest) = cells.split_first()?;
    let (page, between) = rest.split_last()?;
    let paged = (1..=4).contains(&page.len()) && page.chars().all(|c| c.is_ascii_digit());
    let titled = !title.is_empty() && between.iter().all(|cell| cell.is_empty());
    if !(paged && titled) {
        return None;
    }
    Some((*title, page.parse().ok()?))
}

fn is_listing_line(line: &str) -> bool {
    let numbered =
        [". ", ") "].iter().any(|mark| line.split_once(mark).is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())));
    ["* ", "- ", "+ ", "#"].iter().any(|mark| line.starts_with(mark))
        || numbered
        || line.chars().all(|c| c.is_ascii_digit() || c.is_whitespace())
        || line.contains("....") // a title's dot leaders to its page number
        || (!line.starts_with('|') && line.split_whitespace().count() <= 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_headings_in_their_spellings() {
        for heading in [
            "ÍNDICE",
            "Índice",
            "INDICE",
            "**CONTENIDO**",
            "Contenido:",
            "Tabla de contenidos",
            "SUMARIO",
            "Table of Contents",
            " índice  general ",
        ] {
            assert!(is_contents_heading(heading), "{heading}");
        }
        for heading in ["Índice nacional de precios al consumidor", "Apéndice II", "CONTENIDO MÍNIMO DEL PROGRAMA", "Considerandos", ""]
        {
            assert!(!is_contents_heading(heading), "{heading}");
        }
    }

    #[test]
    fn the_rule_by_heading_and_text() {
        let listing = "* Objeto\n* Definiciones\n* Vigencia\n";
        assert!(is_contents(&["Ley", "ÍNDICE"], listing));
        assert!(!is_contents(&["Ley", "Capítulo I"], listing), "a listing under another heading");
        let dotted = "Convenio de Coordinación que celebran el Secretariado Ejecutivo y el Estado de Sonora. ........ 20\n";
        assert!(is_contents(&["SECRETARIA DE MARINA"], dotted));
        let outline = "Artículo 1. Objeto\nArtículo 2. Ámbito\nArtículo 3. Definiciones\nCAPÍTULO II\n\
            Artículo 4. Órganos\nArtículo 5. Funciones\nArtículo 6. Plazos\n";
        assert!(is_contents::<&str>(&[], outline));
        assert!(!is_contents(&["ÍNDICE"], "Esta ley regula el régimen disciplinario de la Policía Nacional del Perú y sus órganos.\n"));
    }

    #[test]
    fn only_the_heading_a_chunk_sits_under_counts() {
        assert!(is_contents_path(&["DIARIO OFICIAL", "ÍNDICE"]));
        // a PDF rendition's notices, each ministry an H2 under the H1 CONTENIDO
        assert!(!is_contents_path(&["CONTENIDO", "SECRETARIA DE MARINA"]));
        assert!(!is_contents_path(&["Índice", "Capítulo I", "Artículo 1"]));
        assert!(!is_contents_path::<&str>(&[]));
    }

    #[test]
    fn a_table_of_contents_is_a_listing() {
        let edition = "## ÍNDICE\n\n**PODER EJECUTIVO**\n\n### SECRETARÍA DE GOBERNACIÓN\n\n\
            * Extracto de la solicitud de registro constitutivo como asociación religiosa de la agrupación denominada Iglesia Cristiana.\n\
            * Aviso por el que se da a conocer el extracto de la solicitud de registro de la agrupación Ministerio.\n\n\
            ### SECRETARÍA DE MARINA\n\n* Convenio de Coordinación en materia de seguridad pública con el Estado de Sinaloa.\n";
        assert!(is_listing(edition));
        let nom = "- 0. Introducción\n- 1. Objetivo\n- 2. Campo de aplicación\n- 3. Referencias normativas\n";
        assert!(is_listing(nom));
        let numbered = "1. Objeto\n2. Definiciones\n3. Vigencia\n";
        assert!(is_listing(numbered));
        let leaders = "## CONTENIDO\n\nServicios de Salud del Instituto Mexicano del Seguro Social para el Bienestar (IMSS-BIENESTAR)\n\n\
            Acuerdo por el que se modifican, adicionan y derogan las Bases para la recepción de bienes muebles e inmuebles. ............ 2\n\n\
            Primer Convenio Modificatorio al Convenio de Coordinación en materia de personal e infraestructura. ........... 9\n";
        assert!(is_listing(leaders));
    }

    #[test]
    fn an_index_under_its_ministries_is_a_paged_listing() {
        // docling's closing ÍNDICE: the ministries' H2s, each notice's title with its leaders
        let index = "## SECRETARIA DE SEGURIDAD Y PROTECCION CIUDADANA\n\n\
            Convenio de Coordinación que celebran el Secretariado Ejecutivo y el Estado de Querétaro.  ...............\n\n\
            Convenio de Coordinación que celebran el Secretariado Ejecutivo y el Estado de Sinaloa. ........ 12\n\n\
            Convenio de Coordinación que celebran el Secretariado Ejecutivo y el Estado de Sonora.....20\n";
        assert!(is_paged_listing(index));
        assert!(is_paged_listing(
            "## SECRETARIA DE MARINA\n\nAviso por el que se dan a conocer las bases de regulación tarifaria. ...........\n"
        ));
        assert!(
            is_paged_listing("Acuerdo por el que se reforma el programa de implementación ....\n2\n3\n4\n"),
            "page numbers are no entries"
        );
        // marker's rendition: the titles in a table with their pages, a ministry's name and a
        // title's second line as rows of their own, the converter's page markers between
        let table = "| Extracto de la solicitud de registro de la agrupación denominada Alef Church. | | 2 |\n\
            |---|---|---|\n\
            | Extracto de la solicitud de registro de la agrupación denominada Ministerio Misionero. | | 3 |\n\
            | SECRETARIA DE SEGURIDAD Y PROTECCION CIUDADANA | | |\n\
            | Convenio de Coordinación que, en el marco del Sistema Nacional de Seguridad Pública, | | |\n\
            | celebran el Secretariado Ejecutivo y el Estado de Querétaro (FASP) 2024. | | 7 |\n\n\
            {8}------------------------------------------------\n\n\
            | Convenio de Coordinación que celebran el Secretariado Ejecutivo y el Estado de Sinaloa (FASP) 2024. | | 13 |\n";
        assert!(is_paged_listing(table));
        assert!(is_contents(&["AVISOS GENERALES"], table));
        let ruled = "## SECRETARIA EJECUTIVA DEL SISTEMA NACIONAL ANTICORRUPCION\n\n\
            Acuerdo mediante el cual se reforma el Programa de Implementación de la Política Nacional Anticorrupción. ....... 327\n\n\
            **_________________________**\n\n{401}------------------------------------------------\n";
        assert!(is_paged_listing(ruled), "rules and page markers are no entries");
        // pymupdf4llm's: each title wrapped over the lines of the PDF's column
        let wrapped = "#### SECRETARIA DE HACIENDA Y CREDITO PUBLICO\n\n\
            Acuerdo por el cual se dan a conocer los montos de los estímulos fiscales aplicables a la\n\
            enajenación de gasolinas en la región fronteriza con Guatemala, correspondientes al periodo que\n\
            se especifica. ........................................................ 98\n\n\
            Norma Oficial Mexicana NOM-004-SEDATU-2023, Estructura y diseño para vías urbanas.\n\
            Especificaciones y aplicación. .......................................... 120\n";
        assert!(is_paged_listing(wrapped));
    }

    #[test]
    fn forms_prose_and_data_are_no_paged_listing() {
        let form = "Nombre: ......................\nDomicilio: ......................\nFirma: ..............\n";
        assert!(!is_paged_listing(form), "blank fields");
        let prose = "El presente convenio entrará en vigor el día de su firma.\n\n\
            Las partes acuerdan lo siguiente en relación con los recursos del fondo......\n\nLeído que fue el presente.\n";
        assert!(!is_paged_listing(prose), "one line in three");
        let unended = "Acuerdo por el que se da a conocer el programa de apoyo a la vivienda del estado. ........ 4\n\n\
            El presente convenio entrará en vigor el día de su firma y\nse publicará en el periódico oficial.\n\n\
            Leído que fue el presente, lo firman\npor duplicado las partes.\n";
        assert!(!is_paged_listing(unended), "lines that reach no leaders are entries too");
        assert!(!is_paged_listing(""));
        assert!(!is_paged_listing("| Clave | Concepto ........ |\n|---|---|\n"), "table rows");
        // a table's figures: more than a title and a number, or numbers out of page order
        let budget = "| 2024 Vigilancia Epidemiológica de las Enfermedades en Animales | 1,903,364.00 | 0.00 | Proyecto | 1 |\n\
            | 2024 Vigilancia Epidemiológica Fitosanitaria de los cultivos del estado | 2,849,477.00 | 0.00 | Proyecto | 1 |\n";
        assert!(!is_paged_listing(budget));
        let counts = "| Personas beneficiarias del programa en la entidad federativa | 120 |\n\
            | Personas atendidas por las unidades médicas móviles del estado | 45 |\n\
            | Localidades de alta marginación cubiertas por el programa estatal | 80 |\n";
        assert!(!is_paged_listing(counts), "not in page order");
        let steps = "| Trámite | Plazo en días hábiles |\n|---|---|\n\
            | Presentación de la solicitud ante la oficina de trámite documentario | 5 |\n\
            | Evaluación de la solicitud por la comisión técnica regional | 10 |\n\
            | Emisión de la resolución que pone fin al procedimiento | 15 |\n";
        assert!(!is_paged_listing(steps), "a table whose header names its columns");
    }

    #[test]
    fn a_laws_outline_under_no_heading() {
        // DS 003-2020-IN as SPIJ renders it: article titles under bold chapter lines
        let articles = "      Artículo 5. Cumplimiento del conducto regular\n\n     Artículo 6. Cumplimiento de las órdenes\n\n\
            **CAPÍTULO III: DEL EJERCICIO DE LA POTESTAD SANCIONADORA  \n**\n\n      Artículo 8. Competencia de la potestad disciplinaria\n\n\
            Artículo 9. Clases de sanciones\n\n     Artículo 10. Nota Anual de Disciplina\n\n\
            Artículo 11. Criterios de graduación para imponer una sanción\n\n     Artículo 12. Reincidencia y habitualidad\n";
        assert!(is_outline(articles));
        // the Código Procesal Civil: links to the divisions, each with its articles
        let links = "[Capítulo I](/spij-ext-web/detallenorma/H682685)\n\n\
            [Juzgados y Cortes (Artículo 48 al 49)](/spij-ext-web/detallenorma/H682685)\n\n\
            [Capítulo II](/spij-ext-web/detallenorma/H682685)\n\n\
            [Deberes, facultades y responsabilidades de los jueces en el proceso (Artículo 50 al 53)](/spij-ext-web/detallenorma/H682685)\n\n\
            [TITULO II](/spij-ext-web/detallenorma/H682685)\n\n[Competencia](/spij-ext-web/detallenorma/H682685)\n\n\
            [Capítulo III](/spij-ext-web/detallenorma/H682685)\n\n[Competencia internacional (Artículo 47)](/spij-ext-web/detallenorma/H682685)\n\n\
            [SECCION SEGUNDA : SUJETOS DEL PROCESO](/spij-ext-web/detallenorma/H682685)\n\n[TITULO I](/spij-ext-web/detallenorma/H682685)\n";
        assert!(is_outline(links));
        // labels and titles on lines of their own, and character references around them
        let alternating = "Artículo 33\nTiempo y forma de pago\nArtículo 34\nMotivación\nArtículo 35\nParámetros\n\
            **&#8211; CAPÍTULO II &#8211;** LA POLICÍA ESPECIALIZADA\nSub capítulo I\nDe las faltas\nArtículo 36\nDecomiso\n";
        assert!(is_outline(alternating));
    }

    #[test]
    fn a_laws_articles_are_no_outline() {
        // the Civil Code's body: each article's title, then its text
        let body = "Artículo 1132.- Obligación de dar bien cierto\n\nEl acreedor de bien cierto no puede ser obligado a recibir otro, \
            aunque éste sea de mayor valor.\n\nArtículo 1133.- Obligación de dar bien cierto\n\nEl obligado a dar bien cierto está \
            obligado a conservarlo hasta su entrega, sin que le sea permitido usar de él en provecho propio.\n\n\
            Artículo 1134.- Pérdida del bien\n\nLa pérdida del bien se produce cuando perece o se hace inútil para el acreedor, \
            cuando desaparece o cuando queda fuera del comercio.\n\nArtículo 1135.- Concurrencia de acreedores\n\n\
            Cuando el bien es inmueble y concurren diversos acreedores a quienes el mismo deudor se ha obligado a entregarlo, se \
            prefiere al acreedor de buena fe cuyo título ha sido primeramente inscrito.\n\nArtículo 1136.- Bien mueble\n\n\
            Si el bien cierto que debe entregarse es mueble se prefiere al acreedor de buena fe a quien el deudor hizo tradición.\n\n\
            Artículo 1137.- Entrega\n\nLa entrega se hace en el lugar convenido.\n";
        assert!(!is_outline(body));
        // where an outline begins: the decree's own articles before it
        let decree = "DECRETA:\n\nArtículo 1.- Aprobación del Reglamento\n\nApruébese el Reglamento de la Ley Nº 29944, Ley de Reforma \
            Magisterial, que consta de doscientos catorce (214) artículos y catorce disposiciones.\n\nArtículo 2.- Refrendo\n\n\
            El presente Decreto Supremo será refrendado por la Ministra de Educación, y entrará en vigencia el día siguiente de su publicación.\n\n\
            Capítulo I\nObjeto y ámbito de aplicación\nCapítulo II\nFormación docente\nSub capítulo I\nDe los roles\n\
            Sub capítulo II\nDe la formación inicial\nCapítulo III\nCarrera\n";
        assert!(!is_outline(decree));
        // a signature block, a list of names: short lines, no labels
        assert!(!is_outline(
            "MARTÍN VIZCARRA\nPresidente de la República\nCARLOS MORÁN\nMinistro del Interior\nMARÍA ANTONIETA ALVA\nMinistra\n"
        ));
        assert!(!is_outline(""));
        // SPIJ's record of a code's amendments: each article, the law that changed it, its date
        let amendments = "Art. 391\nMODIFICADO por el Artículo 1 de la Ley N° 29364\n28-05-2009\n\
            Art. 392\nMODIFICADO por el Artículo 1 de la Ley N° 29364\n28-05-2009\n\
            Art. 393\nDEROGADO por la Única Disposición Complementaria Derogatoria del Decreto Legislativo N° 1069\n28-06-2008\n\
            Art. 394\nMODIFICADO por el Artículo Único de la Ley N° 27740\n29-05-2002\n\
            Art. 395\nMODIFICADO por el Artículo Único de la Ley N° 27740\n29-05-2002\n\
            Art. 396\nSUSTITUIDO por la Segunda Disposición Final del Decreto Legislativo Nº 845\n21-09-1996\n";
        assert!(!is_outline(amendments));
    }

    proptest::proptest! {
        /// An outline is told by its lines' text, not by the markup around it: indenting
        /// every line (SPIJ's non-breaking spaces) and setting it in bold changes no decision.
        #[test]
        fn the_markup_around_a_line_changes_nothing(lines in proptest::collection::vec(0usize..9, 0..40)) {
            const LINES: [&str; 9] = [
                "Artículo 12. Funciones de las oficinas de disciplina",
                "CAPÍTULO II",
                "Sub capítulo I",
                "&#8211; TÍTULO III &#8211; DISPOSICIONES GENERALES",
                "De las sanciones",
                "",
                "Art. 391",
                "El presente reglamento regula el régimen disciplinario del personal policial y los procedimientos que siguen sus órganos.",
                "Ultraje a la nación y a sus símbolos representativos y a los institutos armados de la república (Artículo 98 al 100)",
            ];
            let plain: Vec<&str> = lines.iter().map(|i| LINES[*i]).collect();
            let dressed: Vec<String> = plain.iter().map(|line| format!("\u{a0}\u{a0} **{line}**")).collect();
            proptest::prop_assert_eq!(is_outline(&plain.join("\n")), is_outline(&dressed.join("\n")));
        }

        /// Any text, markup and character references included, gets an answer: the search
        /// legs ask this of every candidate, and a panic would fail the search.
        #[test]
        fn any_text_gets_an_answer(text in "(\\PC|[*_#>|\\[\\]&;\u{a0}\n-])*", heading in "\\PC*") {
            let _ = is_contents(&[heading], &text);
            let _ = is_outline(&text);
        }
    }

    #[test]
    fn division_labels_and_prose_lines() {
        for label in [
            "Artículo 27. Funciones",
            "ARTÍCULO 5o.",
            "Artículos 1 al 3",
            "CAPÍTULO IV",
            "Subcapítulo II",
            "Sub capítulo I",
            "SUB-TÍTULO 11: ÓRGANOS",
            "Sección Primera",
            "TITULO I -",
            "Disposiciones Finales",
            "Anexo Nº 3: Formato",
        ] {
            assert!(is_division_label(label), "{label}");
        }
        for line in ["Artista", "Particular", "Sub", "", "Art. 391", "Artículo 1.- El presente Reglamento regula la conservación de la diversidad biológica y la utilización sostenible de sus componentes en concordancia con la Ley y el Convenio"] {
            assert!(!is_division_label(line), "{line}");
        }
        assert!(is_prose_line(
            "Apruébese el Reglamento de la Ley Nº 29944, Ley de Reforma Magisterial, que consta de doscientos catorce artículos."
        ));
        assert!(!is_prose_line("SECCION VI : De los Delitos Contra los Deberes de Función y de las Infracciones en el Ejercicio de Mando (Artículo 179 al 205)"));
        assert!(!is_prose_line("Apruébese el Reglamento."));
    }

    #[test]
    fn prose_is_not_a_listing() {
        let prose = "## Índice\n\nDebido a que la actual normatividad de diseño geométrico está enfocada en carreteras y no responde \
            a las condiciones de circulación de personas usuarias en los entornos urbanos, es necesario contar con una norma.\n\n\
            El proceso de diseño y estructuración de las calles parte de nombrar los conceptos con claridad con el propósito \
            de generar el consenso necesario para facilitar una dinámica colaborativa entre las personas.\n\n\
            Esta norma establece los criterios que las autoridades de los tres órdenes de gobierno deben observar en el \
            diseño de las vías urbanas de todo el territorio nacional.\n";
        assert!(!is_listing(prose));
        // too short to tell: two lines
        assert!(!is_listing("* uno\n* dos\n"));
        assert!(!is_listing(""));
        // a notice rendered from a PDF: bold lines and a table are no listing
        let notice = "**TRANSITORIOS**\n\n**PRIMERO.- El presente aviso entrará en vigor el día de su publicación en el Diario Oficial de**\n\
            la Federación.\n\n**SEGUNDO.- Las bases de regulación tarifaria a que se refiere el presente aviso, entrarán en vigor a partir**\n\
            de los veinte días hábiles siguientes a su publicación en el Diario Oficial de la Federación, según se indica en la tabla.\n\
            |Prestador del servicio|Puerto|\n|---|---|\n|Administración del Sistema Portuario Nacional Cabo San Lucas, S.A. de C.V.|Cabo San Lucas, B.C.S.|\n";
        assert!(!is_listing(notice));
    }
}
