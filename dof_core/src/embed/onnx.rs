//! A BERT-style encoder run by ONNX Runtime, loaded from a shared library at run time.
//!
//! The model takes `input_ids`, `attention_mask` (and `token_type_ids` when it declares
//! it) and returns per-token states `[batch, sequence, hidden]`; pooling happens here so
//! the same session serves whole-text embeddings and late chunking.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ort::environment::Environment;
use ort::session::{RunOptions, Session, SessionInputValue};
use ort::value::Tensor;

use super::late::{concatenate, plan_windows, token_spans};
use super::pool::MeanPools;
use super::{EmbedError, Embedder};
use crate::signals::with_signals_blocked;
use crate::tokenize::ModelTokenizer;

/// One ONNX Runtime environment per process (a PostgreSQL backend). The library path of
/// the first successful load wins for the life of the process.
static ENVIRONMENT: OnceLock<Environment> = OnceLock::new();

#[derive(Debug, Clone)]
pub struct OnnxOptions {
    /// ONNX Runtime intra-op threads for this session.
    pub intra_threads: usize,
    /// Whether those threads spin waiting for work between operations (ONNX Runtime's
    /// default): a little faster for one session alone, but spinning threads take cores
    /// from the other backends embedding at the same time (bench/scripts/onnx_spinning.sh).
    pub spinning: bool,
    /// Longest token sequence the model accepts (512 for e5-small); a longer input is
    /// embedded as several windows of it, pooled into one vector ([`windows`]).
    pub max_positions: usize,
    /// Upper bound on `batch × padded length` per model call, so a batch of long texts
    /// does not allocate attention for all of them at once.
    pub batch_tokens: usize,
    /// Polled from a watcher thread while the model runs: when it says true, the run is
    /// terminated (ONNX Runtime's `RunOptions::terminate`) and the caller's hook decides
    /// what to raise. Must be safe to call from any thread (the SQL layer reads
    /// PostgreSQL's `sig_atomic_t` cancel and die flags). A batch of 16 windows takes
    /// seconds on two cores, so checking only between batches cancelled 2-4 s late.
    pub interrupt_pending: Option<fn() -> bool>,
}

impl Default for OnnxOptions {
    fn default() -> Self {
        Self { intra_threads: 1, spinning: true, max_positions: 512, batch_tokens: BATCH_TOKENS, interrupt_pending: None }
    }
}

/// `embed` runs its hook after tokenizing this many texts (a few milliseconds' work).
const TEXTS_PER_INTERRUPT: usize = 64;
/// Default `batch_tokens`: two full windows. Measured with `bench/src/bin/embed_memory.rs`
/// (2 threads, Xeon with AVX-512/VNNI, no AMX): 100 texts of ~400 tokens peaked at 1,169 MB
/// RSS in 14.5-17.8 s with 16 windows per call, and at 482 MB in 12.6 s with 2; 600 texts of
/// ~60 tokens at 792 vs 441 MB, 10.0-10.3 vs 9.2-9.5 s. Attention buffers grow with the
/// batch, and smaller batches were not slower.
const BATCH_TOKENS: usize = 2 * 512;
/// How often the watcher thread polls `interrupt_pending` during a model run.
const INTERRUPT_POLL: Duration = Duration::from_millis(10);

pub struct OnnxEmbedder {
    session: Session,
    tokenizer: Arc<ModelTokenizer>,
    takes_token_type_ids: bool,
    dimension: usize,
    options: OnnxOptions,
}

impl OnnxEmbedder {
    /// Loads ONNX Runtime (once per process) and the model, and runs one probe input to
    /// learn and check the output dimension.
    pub fn load(runtime_library: &Path, model: &Path, tokenizer: Arc<ModelTokenizer>, options: OnnxOptions) -> Result<Self, EmbedError> {
        let environment = environment(runtime_library)?;
        if !model.is_file() {
            return Err(EmbedError::ModelMissing { path: model.to_path_buf() });
        }
        let model_error = |reason: String| EmbedError::ModelLoad { path: model.to_path_buf(), reason };
        let threads = options.intra_threads.max(1);
        let session = with_signals_blocked(|| -> ort::Result<Session> {
            Session::builder(environment)?
                .with_intra_threads(threads)?
                .with_inter_threads(1)?
                .with_intra_op_spinning(options.spinning)?
                .commit_from_file(model)
        })
        .map_err(|e| model_error(e.to_string()))?;
        if session.inputs().iter().all(|input| input.name() != "input_ids") {
            return Err(model_error("the model has no input named input_ids".into()));
        }
        let takes_token_type_ids = session.inputs().iter().any(|input| input.name() == "token_type_ids");
        let mut embedder = Self { session, tokenizer, takes_token_type_ids, dimension: 0, options };
        let probe = embedder.tokenizer.encode("", true)?.ids;
        let (_, dimension) = embedder.run(&[&probe]).map_err(|e| model_error(e.to_string()))?;
        embedder.dimension = dimension;
        Ok(embedder)
    }

    /// Late chunking: one vector per chunk, pooled from token states computed with the
    /// whole document (or window) as context. See [`super::late`] for the choices made.
    /// `front_matter[i]` is chunk i's context (H1 + H2) for windows that start at it.
    pub fn embed_late(
        &mut self,
        chunks: &[&str],
        front_matter: &[&str],
        prefix: &str,
        between_batches: &mut dyn FnMut(),
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let (text, ranges) = concatenate(prefix, chunks);
        let tokens = self.tokenizer.encode(&text, false)?;
        let spans = token_spans(&tokens.offsets, &ranges);
        if let Some(empty) = spans.iter().position(|s| s.is_empty()) {
            return Err(EmbedError::InvalidInput(format!("chunk {} has no tokens", empty + 1)));
        }
        let (open, close) = self.special_tokens()?;
        let capacity = self.options.max_positions.max(4) - 2;
        let front_ids: Vec<Vec<u32>> = front_matter
            .iter()
            .map(|f| {
                let mut ids = self.tokenizer.encode(&format!("{prefix}{f}"), false)?.ids;
                ids.truncate(capacity / 4); // context, not content: never most of a window
                Ok(ids)
            })
            .collect::<Result<_, EmbedError>>()?;
        let front_len = |chunk: usize| front_ids.get(chunk).map_or(0, Vec::len);
        let windows = plan_windows(&spans, tokens.ids.len(), capacity, &front_len);
        // token index -> chunk, for pooling as the windows come back
        let mut owner = vec![usize::MAX; tokens.ids.len()];
        for (chunk, span) in spans.iter().enumerate() {
            owner[span.clone()].iter_mut().for_each(|o| *o = chunk);
        }
        let mut pools = MeanPools::new(chunks.len());
        let per_batch = (self.options.batch_tokens / self.options.max_positions.max(1)).max(1);
        for batch in windows.chunks(per_batch) {
            let sequences: Vec<(Vec<u32>, usize)> = batch
                .iter()
                .map(|w| {
                    let front = w.front_of.map_or(&[][..], |c| front_ids.get(c).map_or(&[][..], Vec::as_slice));
                    let mut ids = Vec::with_capacity(w.tokens.len() + front.len() + 2);
                    ids.push(open);
                    ids.extend_from_slice(front);
                    ids.extend_from_slice(&tokens.ids[w.tokens.clone()]);
                    ids.push(close);
                    (ids, 1 + front.len())
                })
                .collect();
            let refs: Vec<&[u32]> = sequences.iter().map(|(ids, _)| ids.as_slice()).collect();
            let (states, dimension) = self.run(&refs)?;
            for ((window, (_, skip)), rows) in batch.iter().zip(&sequences).zip(&states) {
                for (position, token) in window.tokens.clone().enumerate() {
                    let chunk = owner[token];
                    if chunk == usize::MAX {
                        continue; // separator or prefix token
                    }
                    pools.add(chunk, &rows[(skip + position) * dimension..(skip + position + 1) * dimension]);
                }
            }
            between_batches();
        }
        Ok(pools.normalized())
    }

    /// Runs one window of `max_positions` tokens, the length of every long chunk's windows.
    /// A model whose position table is shorter than the `max_positions` it was registered
    /// with failed on the first chunk over it, in every document, with ONNX Runtime's own
    /// words ("Attempting to broadcast an axis by a dimension other than 1. 512 by 1203", e5
    /// registered with 100000); registration runs this, so it fails there, once.
    pub fn check_window(&mut self) -> Result<(), EmbedError> {
        let wrap = self.tokenizer.encode("", true)?.ids;
        let Some(&filler) = self.tokenizer.encode("a", false)?.ids.first() else {
            return Ok(()); // a tokenizer that makes nothing of a letter: no window to build
        };
        let max_positions = self.options.max_positions;
        let mut window = Vec::with_capacity(max_positions.max(wrap.len()));
        window.extend(wrap.first());
        window.resize(window.len() + max_positions.saturating_sub(wrap.len()), filler);
        window.extend(wrap.iter().skip(1));
        match self.run(&[&window]) {
            Err(EmbedError::Inference(reason)) => Err(EmbedError::WindowTooLong { max_positions, reason }),
            other => other.map(|_| ()),
        }
    }

    /// The ids the model wraps a sequence in (`<s>`, `</s>` for e5).
    fn special_tokens(&self) -> Result<(u32, u32), EmbedError> {
        let ids = self.tokenizer.encode("", true)?.ids;
        match (ids.first(), ids.last()) {
            (Some(&open), Some(&close)) if ids.len() == 2 => Ok((open, close)),
            _ => Err(EmbedError::Inference(format!("the tokenizer adds {} special tokens; late chunking expects 2", ids.len()))),
        }
    }

    /// Token ids of `text` with special tokens, as the model's windows: the whole text when it
    /// fits `max_positions`, else consecutive pieces of it, each wrapped in the special tokens
    /// again. Every token of the text is in exactly one window, so every token reaches the
    /// model (it used to be cut at the first window: the vector of an 800-token chunk said
    /// nothing of its last 290 tokens).
    fn model_windows(&self, text: &str) -> Result<Vec<Vec<u32>>, EmbedError> {
        let ids = self.tokenizer.encode(text, true)?.ids;
        Ok(windows(ids, self.options.max_positions))
    }

    /// Runs one padded batch; returns each sequence's token states (unpadded, row-major
    /// `len × dimension`) and the dimension.
    fn run(&mut self, sequences: &[&[u32]]) -> Result<(Vec<Vec<f32>>, usize), EmbedError> {
        let batch = sequences.len();
        let width = sequences.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
        let pad = i64::from(self.tokenizer.pad_id());
        let mut ids = vec![pad; batch * width];
        let mut mask = vec![0i64; batch * width];
        for (row, sequence) in sequences.iter().enumerate() {
            for (col, &id) in sequence.iter().enumerate() {
                ids[row * width + col] = i64::from(id);
                mask[row * width + col] = 1;
            }
        }
        let inference = |e: ort::Error| EmbedError::Inference(e.to_string());
        let shape = [batch, width];
        let mut inputs: Vec<(&str, SessionInputValue)> = vec![
            ("input_ids", Tensor::from_array((shape, ids)).map_err(inference)?.into()),
            ("attention_mask", Tensor::from_array((shape, mask)).map_err(inference)?.into()),
        ];
        if self.takes_token_type_ids {
            let types = vec![0i64; batch * width];
            inputs.push(("token_type_ids", Tensor::from_array((shape, types)).map_err(inference)?.into()));
        }
        let run_options = RunOptions::new().map_err(inference)?;
        let outputs = match self.options.interrupt_pending {
            None => self.session.run_with_options(inputs, &run_options).map_err(inference)?,
            Some(pending) => {
                let finished = AtomicBool::new(false);
                let session = &mut self.session;
                std::thread::scope(|scope| {
                    // spawned with signals blocked, so they still reach the backend's thread
                    let watcher = with_signals_blocked(|| {
                        scope.spawn(|| {
                            while !finished.load(Ordering::Acquire) {
                                if pending() {
                                    let _ = run_options.terminate();
                                    return;
                                }
                                std::thread::park_timeout(INTERRUPT_POLL);
                            }
                        })
                    });
                    let outputs = session.run_with_options(inputs, &run_options);
                    // wake the watcher now: a query embedding takes a few milliseconds, and
                    // waiting out the poll interval would add up to 10 ms to each one
                    finished.store(true, Ordering::Release);
                    watcher.thread().unpark();
                    outputs
                })
                .map_err(|e| if pending() { EmbedError::Interrupted } else { inference(e) })?
            }
        };
        let (out_shape, states) = outputs[0].try_extract_tensor::<f32>().map_err(inference)?;
        let dims: Vec<i64> = out_shape.iter().copied().collect();
        if dims.len() != 3 || dims[0] as usize != batch || dims[1] as usize != width || dims[2] <= 0 {
            return Err(EmbedError::OutputShape(dims));
        }
        let dimension = dims[2] as usize;
        let per_row = width * dimension;
        let rows = sequences
            .iter()
            .enumerate()
            .map(|(row, sequence)| states[row * per_row..row * per_row + sequence.len() * dimension].to_vec())
            .collect();
        Ok((rows, dimension))
    }
}

impl Embedder for OnnxEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&mut self, texts: &[&str], between_batches: &mut dyn FnMut()) -> Result<Vec<Vec<f32>>, EmbedError> {
        // tokenizing thousands of texts takes most of a second: the hook runs in between too
        let mut inputs: Vec<(usize, Vec<u32>)> = Vec::with_capacity(texts.len());
        for (i, text) in texts.iter().enumerate() {
            if i % TEXTS_PER_INTERRUPT == TEXTS_PER_INTERRUPT - 1 {
                between_batches();
            }
            inputs.extend(self.model_windows(text)?.into_iter().map(|window| (i, window)));
        }
        // Length-sorted batches keep padding (wasted attention) small.
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        order.sort_by_key(|&i| inputs[i].1.len());
        // a text's vector: the mean of the token states of all its windows
        let mut pools = MeanPools::new(texts.len());
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len() && (end + 1 - start) * inputs[order[end]].1.len() <= self.options.batch_tokens {
                end += 1;
            }
            let batch: Vec<&[u32]> = order[start..end].iter().map(|&i| inputs[i].1.as_slice()).collect();
            let (states, dimension) = self.run(&batch)?;
            for (&index, rows) in order[start..end].iter().zip(&states) {
                rows.chunks_exact(dimension).for_each(|state| pools.add(inputs[index].0, state));
            }
            start = end;
            between_batches();
        }
        Ok(pools.normalized())
    }
}

/// `ids` (a text's tokens between its opening and closing special token) as model windows
/// of at most `max_positions` tokens: the text itself when it fits, else consecutive
/// pieces, each between the two special tokens again. Every token between the specials is
/// in exactly one window, in order.
pub(crate) fn windows(ids: Vec<u32>, max_positions: usize) -> Vec<Vec<u32>> {
    let limit = max_positions.max(3);
    if ids.len() <= limit || ids.len() < 2 {
        return vec![ids];
    }
    let (open, close) = (ids[0], ids[ids.len() - 1]);
    ids[1..ids.len() - 1]
        .chunks(limit - 2)
        .map(|piece| {
            let mut window = Vec::with_capacity(piece.len() + 2);
            window.push(open);
            window.extend_from_slice(piece);
            window.push(close);
            window
        })
        .collect()
}

fn environment(library: &Path) -> Result<&'static Environment, EmbedError> {
    if let Some(environment) = ENVIRONMENT.get() {
        return Ok(environment);
    }
    if !library.is_file() {
        return Err(EmbedError::RuntimeMissing { path: library.to_path_buf() });
    }
    let load_error = |reason: String| EmbedError::RuntimeLoad { path: library.to_path_buf(), reason };
    let builder = ort::init_from(library).map_err(|e| load_error(e.to_string()))?;
    let environment =
        with_signals_blocked(|| builder.with_name("pg_dof").with_telemetry(false).build()).map_err(|e| load_error(e.to_string()))?;
    Ok(ENVIRONMENT.get_or_init(|| environment))
}

#[cfg(test)]
mod tests {
    use super::windows;

    #[test]
    fn every_token_reaches_the_model_in_windows_that_fit() {
        let ids: Vec<u32> = std::iter::once(0).chain(10..1210).chain(std::iter::once(2)).collect();
        let pieces = windows(ids.clone(), 512);
        assert_eq!(pieces.len(), 3);
        assert!(pieces.iter().all(|w| w.len() <= 512 && w[0] == 0 && w[w.len() - 1] == 2));
        let inner: Vec<u32> = pieces.iter().flat_map(|w| w[1..w.len() - 1].to_vec()).collect();
        assert_eq!(inner, ids[1..ids.len() - 1], "each token once, in order");
        assert_eq!(windows(ids[..512].to_vec(), 512), vec![ids[..512].to_vec()], "a text that fits is one window, unchanged");
    }
}
