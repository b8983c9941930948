//! Shared pieces of the benchmark binaries: corpus loading, timing, table printing.

use std::path::PathBuf;
use std::time::Instant;

/// The shared corpora: $PG_DOF_CORPORA or ../shared/corpora beside the checkout (run from
/// the repository root, as `make bench` does).
pub fn corpora() -> PathBuf {
    std::env::var("PG_DOF_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| std::env::current_dir().expect("a working directory").join("../shared/corpora"))
}

/// The installed e5 tokenizer.json (dof_core::install: $PG_DOF_HOME or the default root).
pub fn tokenizer_path() -> PathBuf {
    dof_core::install::default_tokenizer()
}

/// The installed e5 model.onnx.
pub fn model_path() -> PathBuf {
    dof_core::install::model_dir().join(dof_core::install::DEFAULT_MODEL).join("model.onnx")
}

/// Every markdown file under `corpora()/name`, sorted by path; exits with a message when absent.
pub fn load_corpus(name: &str) -> Vec<(PathBuf, String)> {
    let folder = corpora().join(name);
    if !folder.is_dir() {
        eprintln!("corpus {} is absent: set PG_DOF_CORPORA", folder.display());
        std::process::exit(2);
    }
    let files = dof_core::corpus::markdown_files(&folder);
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).expect("utf-8"))).collect()
}

pub fn megabytes(docs: &[&str]) -> f64 {
    docs.iter().map(|d| d.len()).sum::<usize>() as f64 / 1e6
}

/// Median wall time in seconds of `runs` runs of `f`.
pub fn median_seconds(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    if values.is_empty() {
        0.0
    } else if values.len() % 2 == 1 {
        values[values.len() / 2]
    } else {
        (values[values.len() / 2 - 1] + values[values.len() / 2]) / 2.0
    }
}

/// The CPU this run measured on: model name and the vector-instruction flags that change
/// tokenizer and ONNX Runtime speed (sessions get different CPUs: compare ratios of one run).
pub fn cpu_line() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_string()).unwrap_or_default()
    };
    let flags = field("flags");
    let wanted = ["avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8", "f16c", "fma"];
    let present: Vec<&str> = wanted.into_iter().filter(|w| flags.split(' ').any(|f| f == *w)).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("CPU: {} ({cores} cores); flags: {}", field("model name"), present.join(" "))
}
