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
