#!/usr/bin/env python3
"""The DOF set's questions over other converters' renditions of the same editions.

bench/eval/dof_questions.tsv was written from Gemini's renditions; docling,
pymupdf4llm and marker render the same PDFs with other headings, tables and line breaks,
and a user loads whichever they have. For each question on an edition that RENDITION also
renders, the evidence is looked for in that rendition with markdown marks and whitespace
ignored; where it stands more than once (a notice's title in the edition's CONTENIDO and
over the notice), the occurrence whose place in the edition is nearest the Gemini
rendition's is the reference. Prints question, file, and the reference's character range
(start, end: PostgreSQL's character positions, from 0) for
bench/sql/quality_load_dof_renditions.sql. Questions whose evidence the rendition does not
hold (a converter dropped or garbled it) are left out and counted on stderr.

usage: dof_renditions.py RENDITION QUESTIONS.tsv CORPORA_ROOT > out.tsv
RENDITION: docling | pymupdf4llm | marker (each edition's file in that converter's folder)
"""
import csv
import os
import sys

# Gemini's edition (as the questions name it) -> the same edition in each rendition.
RENDITIONS = {
    "docling": {
        "dof_markdown_gemini/2024/04/12042024-MAT.md": "dof_markdown_docling/2024/04/12042024-MAT.md",
        "dof_markdown_gemini/2024/03/18032024-MAT.md": "dof_markdown_docling/2024/03/18032024-MAT.md",
    },
    "pymupdf4llm": {
        "dof_markdown_gemini/2024/04/12042024-MAT.md": "dof_markdown_pymupdf4llm/2024/04/12042024-MAT.md",
    },
    "marker": {
        "dof_markdown_gemini/2024/04/12042024-MAT.md":
            "dof_markdown_marker_gemini/2024/04/12042024-MAT/12042024-MAT.md",
        "dof_markdown_gemini/2024/03/18032024-MAT.md":
            "dof_markdown_marker_single_gemini/2024/03/18032024-MAT/18032024-MAT.md",
    },
}

IGNORED = set("*_#|`>\\")


def normalised(text):
    """Lowercase text with markdown marks dropped and whitespace runs as one space, and the
    position in TEXT of each of its characters."""
    out, where = [], []
    space = True
    for i, c in enumerate(text):
        if c in IGNORED or c.isspace():
            if not space:
                out.append(" ")
                where.append(i)
                space = True
            continue
        out.append(c.lower())
        where.append(i)
        space = False
    return "".join(out), where


def rendered(path):
    with open(path, encoding="utf-8") as f:
        return normalised(f.read())


def occurrences(text, needle):
    places, at = [], text.find(needle)
    while needle and at >= 0:
        places.append(at)
        at = text.find(needle, at + 1)
    return places


def main():
    rendition, questions, root = sys.argv[1:4]
    editions = RENDITIONS[rendition]
    bodies = {}
    kept = missing = 0
    print("question\tfile\tstart\tend")
    with open(questions, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            edition = row["file"].removeprefix("dof-editions/")
            if edition not in editions:
                continue
            target = "dof-editions/" + editions[edition]
            if target not in bodies:
                bodies[target] = rendered(os.path.join(root, target))
            if row["file"] not in bodies:
                bodies[row["file"]] = rendered(os.path.join(root, row["file"]))
            flat, where = bodies[target]
            needle = normalised(row["evidence"])[0].strip()
            places = occurrences(flat, needle)
            if not places:
                missing += 1
                continue
            source_flat = bodies[row["file"]][0]
            source_at = source_flat.find(needle)
            # the source's own place, as a share of its length (the source may not hold the
            # normalised evidence where markdown split it: then the first occurrence)
            share = source_at / len(source_flat) if source_at >= 0 else 0.0
            at = min(places, key=lambda p: abs(p / len(flat) - share))
            start, end = where[at], where[at + len(needle) - 1] + 1
            print(f"{row['question']}\t{target}\t{start}\t{end}")
            kept += 1
    print(f"{rendition}: {kept} questions kept, {missing} whose evidence it does not hold",
          file=sys.stderr)


if __name__ == "__main__":
    main()
