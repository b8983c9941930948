//! A document's table of contents: the chunks that list what the document holds.
//!
//! A DOF edition opens with `CONTENIDO` and closes with `ÍNDICE`, which name every notice
//! it publishes; a NOM lists its own sections. Such a chunk holds the words of every
//! question about the document and answers none of them: on the DOF set it came first in
//! both legs for questions whose answer was the notice it lists. The search legs leave
//! these chunks out (`dof_contents`, sql/contents.sql); they stay stored, and readable.
//!
//! A chunk is a table of contents when the heading it sits under names one
//! ([`is_contents_path`]) and its lines are a listing ([`is_listing`]). Only its own
//! heading counts: a PDF rendition of an edition (pymupdf4llm) puts every notice under an
//! H1 `CONTENIDO`, whose ministries are H2s; and the second test keeps searchable a
//! document whose only heading is "Índice" but whose body is prose.

/// How many candidates past the `k` wanted each search leg ranks before it leaves out the
/// tables of contents among them: reading a chunk's text to tell (its content, stored
/// apart by TOAST) for every candidate the index or the text match yields cost the vector
/// leg more than half its time; a document has a few such chunks (a DOF edition two to
/// four), so a leg returns fewer than `k` only when more than this many of its best are.
pub const SEARCH_MARGIN: usize = 10;

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

/// Whether a chunk's text is a table of contents whatever heading it sits under: at least
/// three in four of its entries (its lines but headings, page numbers and table rows) end
/// in dot leaders, with or without the page number (`Convenio ... con el Estado de
/// Querétaro. ........ 12`), and they read as titles, five words or more before the
/// leaders on average. docling renders a DOF edition's closing ÍNDICE as `## INDICE PODER
/// EJECUTIVO` followed by each ministry's H2 and its notices' titles, so the chunks of the
/// index sit under the ministries; a form's blank fields (`Nombre: ..........`) are no
/// titles.
pub fn is_dotted_listing(content: &str) -> bool {
    let entries: Vec<&str> = content
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('|') && !l.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let titles: Vec<&str> = entries.iter().filter_map(|l| before_leaders(l)).collect();
    let words: usize = titles.iter().map(|t| t.split_whitespace().count()).sum();
    !titles.is_empty() && titles.len() * 4 >= entries.len() * 3 && words >= titles.len() * 5
}

/// The text of a line before the dot leaders it ends with (four dots or more, then at most
/// a page number), or `None` when it does not end so.
fn before_leaders(line: &str) -> Option<&str> {
    let unpaged = line.trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace());
    let text = unpaged.trim_end_matches('.');
    (unpaged.len() - text.len() >= 4).then_some(text)
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
    fn an_index_under_its_ministries_is_a_dotted_listing() {
        // docling's closing ÍNDICE: the ministries' H2s, each notice's title with its leaders
        let index = "## SECRETARIA DE SEGURIDAD Y PROTECCION CIUDADANA\n\n\
            Convenio de Coordinación que celebran el Secretariado Ejecutivo y el Estado de Querétaro.  ...............\n\n\
            Convenio de Coordinación que celebran el Secretariado Ejecutivo y el Estado de Sinaloa. ........ 12\n\n\
            Convenio de Coordinación que celebran el Secretariado Ejecutivo y el Estado de Sonora.....20\n";
        assert!(is_dotted_listing(index));
        assert!(is_dotted_listing(
            "## SECRETARIA DE MARINA\n\nAviso por el que se dan a conocer las bases de regulación tarifaria. ...........\n"
        ));
        assert!(
            is_dotted_listing("Acuerdo por el que se reforma el programa de implementación ....\n2\n3\n4\n"),
            "page numbers are no entries"
        );
    }

    #[test]
    fn forms_and_prose_are_no_dotted_listing() {
        let form = "Nombre: ......................\nDomicilio: ......................\nFirma: ..............\n";
        assert!(!is_dotted_listing(form), "blank fields");
        let prose = "El presente convenio entrará en vigor el día de su firma.\n\n\
            Las partes acuerdan lo siguiente en relación con los recursos del fondo......\n\nLeído que fue el presente.\n";
        assert!(!is_dotted_listing(prose), "one line in three");
        assert!(!is_dotted_listing(""));
        assert!(!is_dotted_listing("| Clave | Concepto ........ |\n|---|---|\n"), "table rows");
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
