//! Where the chunker's measuring pass spends its time (profiling aid, not a benchmark table).
use dof_bench::{load_corpus, median_seconds, megabytes, tokenizer_path};
use tokenizers::{OffsetReferential, OffsetType, PreTokenizer, Tokenizer};

fn main() {
    let tokenizer = Tokenizer::from_file(tokenizer_path()).expect("tokenizer");
    let files = load_corpus("dof-editions");
    let docs: Vec<&str> = files.iter().map(|(_, t)| t.as_str()).collect();
    let mb = megabytes(&docs);
    let normalize = median_seconds(3, || {
        for doc in &docs {
            let n = tokenizer.get_added_vocabulary().extract_and_normalize(tokenizer.get_normalizer(), doc);
            std::hint::black_box(n);
        }
    });
    let pre = median_seconds(3, || {
        for doc in &docs {
            let mut n = tokenizer.get_added_vocabulary().extract_and_normalize(tokenizer.get_normalizer(), doc);
            tokenizer.get_pre_tokenizer().unwrap().pre_tokenize(&mut n).unwrap();
            std::hint::black_box(n.get_splits(OffsetReferential::Original, OffsetType::Byte).len());
        }
    });
    println!("normalize: {:.2} MB/s; normalize + pre-tokenize + splits: {:.2} MB/s", mb / normalize, mb / pre);
}
