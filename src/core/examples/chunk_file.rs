//! Prints the chunks of one markdown file: `cargo run --release --example chunk_file -- FILE [MAX_TOKENS] [TOKENIZER]`.
use dof_core::chunk::{chunk_document, ChunkOptions};
use dof_core::tokenize::ModelTokenizer;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable file");
    let max_tokens = args.get(2).map_or(800, |m| m.parse().expect("a number"));
    let tokenizer_path = args.get(3).map_or_else(dof_core::install::default_tokenizer, std::path::PathBuf::from);
    let tokenizer = ModelTokenizer::from_file(&tokenizer_path).expect("tokenizer");
    let options = ChunkOptions { max_tokens, ..ChunkOptions::default() };
    for chunk in chunk_document(&text, &tokenizer, &options).expect("chunks") {
        println!(
            "#{} {} tokens={} chars={}..{} table={} header={} overlap={} split={} path={:?}\n{}\n",
            chunk.chunk_index,
            chunk.pattern,
            chunk.token_count,
            chunk.char_start,
            chunk.char_end,
            chunk.table_piece,
            chunk.header_repeated,
            chunk.overlap,
            chunk.split,
            chunk.heading_path,
            chunk.content.chars().take(300).collect::<String>()
        );
    }
}
