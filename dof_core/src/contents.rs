//! A document's table of contents: the chunks that list what the document holds.
//!
//! A DOF edition opens with `CONTENIDO` and closes with `ÍNDICE`, which name every notice
//! it publishes; a NOM lists its own sections. Such a chunk holds the words of every
//! question about the document and answers none of them: on the DOF set it came first in
//! both legs for questions whose answer was the notice it lists. The search legs leave
//! these chunks out (`dof_contents`, sql/contents.sql); they stay stored, and readable.
//!
//! A chunk is a table of contents when the heading it sits under, or that heading's parent
//! (an edition's index has a heading per ministry), names one ([`is_contents_path`]) and
//! its lines are a listing ([`is_listing`]); the second test keeps searchable a document
//! whose only heading is "Índice" but whose body is prose.

/// Whether a chunk's heading path puts it in a table of contents: its last heading or the
/// one above it names one ([`is_contents_heading`]).
pub fn is_contents_path<S: AsRef<str>>(heading_path: &[S]) -> bool {
    heading_path.iter().rev().take(2).any(|heading| is_contents_heading(heading.as_ref()))
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
/// three in four of them list items (`*`, `-`, `+`, `1.`), headings, page numbers, table
/// rows or short lines (up to eight words): what a table of contents is made of, and
/// prose is not.
pub fn is_listing(content: &str) -> bool {
    let lines: Vec<&str> = content.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let listed = lines.iter().filter(|l| is_listing_line(l)).count();
    lines.len() >= 3 && listed * 4 >= lines.len() * 3
}

fn is_listing_line(line: &str) -> bool {
    let numbered = line.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    line.starts_with(['*', '-', '+', '#', '|'])
        || numbered
        || line.chars().all(|c| c.is_ascii_digit() || c.is_whitespace())
        || line.split_whitespace().count() <= 8
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
    fn the_last_two_headings_of_a_path_count() {
        assert!(is_contents_path(&["DIARIO OFICIAL", "ÍNDICE"]));
        assert!(is_contents_path(&["DIARIO OFICIAL", "ÍNDICE", "SECRETARÍA DE GOBERNACIÓN"]));
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
    }
}
