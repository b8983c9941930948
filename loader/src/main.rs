//! `dof load PATH... --collection NAME`: markdown, text, HTML and EPUB files into pg_dof's
//! `dof_documents`, batched (one statement through `dof_put_document` and one transaction per batch), on
//! `--jobs` connections at once (with inline triggers each connection chunks and embeds in
//! its own backend), resumable (a file whose content hash the collection already holds is
//! skipped, a changed one updated), with progress and a summary; exit status 1 when any
//! file failed. `--dry-run` reads and classifies without connecting. `--coordinator`: the
//! connection is a pg_dof_coordinator, and each document goes straight to its shard.

mod connect;
mod files;
mod path_metadata;
mod shards;
mod store;

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use dof_loader::convert;
use files::{Format, Read};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use path_metadata::PathMetadata;

#[derive(Parser)]
#[command(name = "dof", version, about = "pg_dof's command line")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load files (folders are walked) into a collection
    Load(LoadArgs),
}

#[derive(clap::Args)]
struct LoadArgs {
    /// Files or folders
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The collection the documents go to (it must exist)
    #[arg(long, default_value = "default")]
    collection: String,
    /// Connections writing at once (each batch is indexed by the backend that writes it)
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Read, classify and count tokens; write nothing (no connection)
    #[arg(long)]
    dry_run: bool,
    /// Path parts as metadata keys, e.g. '{year}/{month}/{date}/{edition}/{number}_*.md'
    #[arg(long)]
    path_metadata: Option<String>,
    #[arg(long, value_enum, default_value = "auto")]
    format: Format,
    /// The encoding of files that are not UTF-8: windows-1252 (latin1) for Spanish text saved
    /// by older Windows tools, or any WHATWG label. UTF-8 files still read as UTF-8; a file
    /// that starts with a byte order mark is read in the encoding it names (UTF-16 from
    /// Windows' "Unicode"); an EPUB is UTF-8
    #[arg(long, default_value = "utf-8", value_parser = files::encoding)]
    encoding: &'static encoding_rs::Encoding,
    /// Documents per batch (a batch is one transaction)
    #[arg(long, default_value_t = 50)]
    batch_size: usize,
    /// Files over this size fail (MiB)
    #[arg(long, default_value_t = 64)]
    max_file_mb: u64,
    /// A libpq connection string; default: PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD
    #[arg(long)]
    connection: Option<String>,
    /// The connection is a pg_dof_coordinator: write each document straight to the shard that
    /// owns it (the coordinator says which), --jobs connections per shard
    #[arg(long)]
    coordinator: bool,
}

/// What happened to each file.
#[derive(Default)]
struct Summary {
    added: usize,
    updated: usize,
    unchanged: usize,
    removed: usize,
    failed: Vec<(String, String)>,
    /// Loaded, with something the user should know (malformed front matter).
    warnings: Vec<(String, String)>,
    bytes: usize,
}

impl Summary {
    /// Every document of a batch that was never handed to a writer, failed with why.
    fn not_loaded(&mut self, unsent: store::Batch, reason: &str) {
        self.failed.extend(unsent.source_ids().map(|id| (id, format!("not loaded: {reason}"))));
    }
}

fn main() {
    let Cli { command: Command::Load(args) } = Cli::parse();
    match load(&args) {
        Ok(summary) if summary.failed.is_empty() => {}
        Ok(_) => std::process::exit(1),
        Err(message) => {
            eprintln!("dof load: {message}");
            std::process::exit(2);
        }
    }
}

fn load(args: &LoadArgs) -> Result<Summary, String> {
    if args.jobs == 0 || args.batch_size == 0 {
        return Err("--jobs and --batch-size must be at least 1".into());
    }
    let path_metadata = args.path_metadata.as_deref().map(PathMetadata::parse).transpose()?;
    let files::Walk { found, left_out } = files::walk(&args.paths, args.format);
    if !left_out.is_empty() {
        let kinds: Vec<String> = left_out.iter().map(|(extension, n)| format!("{extension} {n}")).collect();
        eprintln!(
            "dof load: left out {} file(s) of other kinds in the folders given ({}): {}",
            left_out.values().sum::<usize>(),
            kinds.join(", "),
            files::kinds(args.format)
        );
    }
    if args.dry_run {
        return Ok(dry_run(args, found));
    }
    let config = connect::config(args.connection.as_deref())?;
    let mut client = connect::connect(&config)?;
    // where documents are written: this database, or each shard of a coordinator's cluster
    let targets = if args.coordinator { shards::targets(&mut client, &config)? } else { vec![config.clone()] };
    // no more writers than files: a writer beyond them would only hold a connection (each
    // file is at least one row of a batch; --jobs 100000 aborted, out of memory for threads)
    let jobs = args.jobs.min(found.len().max(1));
    let mut existing = std::collections::HashMap::new();
    for target in &targets {
        existing.extend(store::existing(&mut connect::connect(target)?, &args.collection)?);
    }
    eprintln!(
        "dof load: {} files into collection {:?}, {}{}, {} job(s)",
        found.len(),
        args.collection,
        connect::describe(&config),
        if args.coordinator { format!(" (coordinator of {} shards)", targets.len()) } else { String::new() },
        jobs
    );

    let started = Instant::now();
    let total_bytes: u64 = found.iter().map(|(f, _)| std::fs::metadata(&f.path).map_or(0, |m| m.len())).sum();
    let progress = progress_bar(total_bytes);
    let mut summary = Summary::default();
    let (results, result_rx) = mpsc::channel::<Outcome>();
    // one queue of batches per target, --jobs writers (connections) on each; the writers
    // hold the only receivers, so if they all stop a send fails instead of waiting
    let mut batches = Vec::new();
    let mut writers = Vec::new();
    for target in &targets {
        let (sender, batch_rx) = mpsc::sync_channel::<store::Batch>(jobs * 2);
        batches.push(sender);
        let batch_rx = std::sync::Arc::new(std::sync::Mutex::new(batch_rx));
        for started in 0..jobs {
            let (batch_rx, results, config, collection) = (batch_rx.clone(), results.clone(), target.clone(), args.collection.clone());
            // a writer that cannot connect (more --jobs than free connections) ends at once
            // and the others write its share; its error is reported with the summary
            let writer = std::thread::Builder::new().spawn(move || -> Result<(), String> {
                let mut client = connect::connect(&config)?;
                loop {
                    let Ok(batch) = batch_rx.lock().expect("a writer panicked").recv() else { return Ok(()) };
                    let _ = results.send(write_batch(&mut client, &config, &collection, batch));
                }
            });
            // a thread the system refuses is a writer fewer, not an abort
            match writer {
                Ok(writer) => writers.push(writer),
                Err(error) => {
                    eprintln!("dof load: started {started} of {jobs} writers for {}: {error}", connect::describe(target));
                    break;
                }
            }
        }
    }
    drop(results);
    let mut send = |batch: store::Batch| -> Result<(), (store::Batch, String)> {
        let routed = if targets.len() == 1 {
            vec![batch]
        } else {
            let (reconnected, owners) = connect::again_if_lost(&mut client, &config, |c| shards::owners(c, &batch, targets.len()));
            if reconnected {
                eprintln!("dof load: the connection to the coordinator was lost; connected again");
            }
            match owners {
                Ok(owners) => shards::split(batch, &owners, targets.len()),
                Err(error) => return Err((batch, error)),
            }
        };
        for (target, part) in routed.into_iter().enumerate().filter(|(_, part)| !part.is_empty()) {
            batches[target].send(part).map_err(|unsent| (unsent.0, "no writer is left to write it".to_string()))?;
        }
        Ok(())
    };

    // the parts (EPUB chapters) each file held when the load started, to find removed ones
    let mut parts_of_file: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
    for source_id in existing.keys() {
        if let Some((file, _)) = source_id.split_once('#') {
            parts_of_file.entry(file).or_default().push(source_id);
        }
    }
    let mut batch = store::Batch::default();
    let mut batch_bytes = 0usize;
    let mut last_line = Instant::now();
    // why the load stopped sending: every file after that point is failed with it
    let mut stopped: Option<String> = None;
    for (done, (file, problem)) in found.iter().enumerate() {
        if let Some(reason) = &stopped {
            summary.failed.push((file.source_id.clone(), format!("not loaded: {reason}")));
            continue;
        }
        if let Some(problem) = problem {
            summary.failed.push((file.source_id.clone(), problem.clone()));
            continue;
        }
        match files::read(&file.path, args.max_file_mb * 1024 * 1024, args.format, args.encoding) {
            Read::Failed(reason) => summary.failed.push((file.source_id.clone(), reason)),
            Read::Ok { parts, bytes } => {
                summary.bytes += bytes;
                progress.inc(bytes as u64);
                let captured = path_metadata.as_ref().and_then(|p| p.captures(&file.source_id)).unwrap_or_default();
                // only a file read as parts (an EPUB's chapters) has parts that can be gone:
                // `a.md#old/b.md` is another file, not a part of `a.md`
                let in_parts = parts.iter().any(|part| part.suffix.is_some());
                let mut current = std::collections::HashSet::new();
                for part in parts {
                    let source_id = match &part.suffix {
                        Some(suffix) => format!("{}#{suffix}", file.source_id),
                        None => file.source_id.clone(),
                    };
                    current.insert(source_id.clone());
                    // the trigger makes valid front matter the title and metadata; a block
                    // that is not YAML fields is indexed as text, and said here
                    if let dof_core::front_matter::Parsed::Malformed(reason) = dof_core::front_matter::parse(&part.markdown) {
                        summary.warnings.push((source_id.clone(), format!("{reason}; loaded, the block indexed as text")));
                    }
                    if existing.get(&source_id).is_some_and(|hash| *hash == files::content_hash(&part.markdown)) {
                        summary.unchanged += 1;
                        continue;
                    }
                    let mut metadata = serde_json::Map::new();
                    metadata.insert("path".into(), file.source_id.clone().into());
                    metadata.extend(captured.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone()))));
                    metadata.extend(part.metadata);
                    batch_bytes += part.markdown.len();
                    batch.rows.push(store::Row { source_id, body: part.markdown, metadata: metadata.into() });
                }
                if in_parts {
                    let gone = parts_of_file.get(file.source_id.as_str()).into_iter().flatten().filter(|id| !current.contains(**id));
                    batch.removed.extend(gone.map(|id| id.to_string()));
                }
                if batch.rows.len() + batch.removed.len() >= args.batch_size || batch_bytes >= 16 << 20 {
                    if let Err((unsent, reason)) = send(std::mem::take(&mut batch)) {
                        summary.not_loaded(unsent, &reason);
                        stopped = Some(reason);
                    }
                }
                batch_bytes = if batch.is_empty() { 0 } else { batch_bytes };
            }
        }
        while let Ok(outcome) = result_rx.try_recv() {
            tally(&mut summary, outcome);
        }
        progress.set_message(format!("{} files", done + 1));
        if progress.is_hidden() && last_line.elapsed() > Duration::from_secs(10) {
            eprintln!("dof load: {}/{} files, {:.1} MB", done + 1, found.len(), summary.bytes as f64 / 1e6);
            last_line = Instant::now();
        }
    }
    if !batch.is_empty() {
        if let Err((unsent, reason)) = send(batch) {
            summary.not_loaded(unsent, &reason);
        }
    }
    drop(batches);
    let mut writer_errors = Vec::new();
    for writer in writers {
        if let Err(error) = writer.join().expect("a writer panicked") {
            writer_errors.push(error);
        }
    }
    while let Ok(outcome) = result_rx.try_recv() {
        tally(&mut summary, outcome);
    }
    progress.finish_and_clear();
    if summary.added + summary.updated + summary.removed > 0 {
        fold_statistics(&targets, &args.collection);
    }
    print_summary(&summary, started.elapsed());
    if !writer_errors.is_empty() {
        eprintln!(
            "dof load: {} of {} writer connections failed ({}); the others wrote their share",
            writer_errors.len(),
            targets.len() * jobs,
            writer_errors[0]
        );
    }
    Ok(summary)
}

/// Writes one batch in one transaction; when that fails, each document in a transaction
/// of its own, so one bad document (a NUL in its metadata, a trigger's error) fails alone
/// and names itself. A lost connection is opened again once.
fn write_batch(client: &mut postgres::Client, config: &postgres::Config, collection: &str, batch: store::Batch) -> Outcome {
    let mut outcome = Outcome::default();
    let rows = batch.rows;
    let attempt = |client: &mut postgres::Client, rows: &[store::Row], removed: &[String]| {
        connect::again_if_lost(client, config, |c| store::write(c, collection, rows, removed)).1
    };
    let count = |written: store::Written, rows: &[store::Row], outcome: &mut Outcome| {
        outcome.added += written.inserted;
        outcome.updated += written.updated;
        outcome.removed += written.deleted as usize;
        outcome.unchanged += rows.len() - written.inserted - written.updated;
    };
    match attempt(client, &rows, &batch.removed) {
        Ok(written) => count(written, &rows, &mut outcome),
        Err(_) if rows.len() + batch.removed.len() > 1 => {
            for row in rows.chunks(1) {
                match attempt(client, row, &[]) {
                    Ok(written) => count(written, row, &mut outcome),
                    Err(error) => outcome.failed.push((row[0].source_id.clone(), format!("not written: {error}"))),
                }
            }
            if !batch.removed.is_empty() {
                match attempt(client, &[], &batch.removed) {
                    Ok(written) => outcome.removed += written.deleted as usize,
                    Err(error) => outcome.failed.extend(batch.removed.iter().map(|id| (id.clone(), format!("not removed: {error}")))),
                }
            }
        }
        Err(error) => outcome
            .failed
            .extend(rows.iter().map(|r| r.source_id.clone()).chain(batch.removed).map(|id| (id, format!("not written: {error}")))),
    }
    outcome
}

/// What one batch did: documents added, updated, unchanged (stored meanwhile with the same
/// content) and removed, and those that failed with why.
#[derive(Default)]
struct Outcome {
    added: usize,
    updated: usize,
    unchanged: usize,
    removed: usize,
    failed: Vec<(String, String)>,
}

/// BM25's statistics are deltas that the triggers append, a row per lexeme for each document
/// written: folded once the load is done, a search reads a row per lexeme instead of one per
/// document holding it (a collection's deltas never folded made each lexeme's count a scan:
/// bench/scripts/term_stats_reads.sh). Searches are exact either way, so a fold that fails
/// (a role that may not delete from dof_term_stats) is said and the load still succeeds.
fn fold_statistics(targets: &[postgres::Config], collection: &str) {
    for target in targets {
        if let Err(error) = connect::connect(target).and_then(|mut client| store::fold_statistics(&mut client, collection)) {
            let literal = collection.replace('\'', "''");
            eprintln!(
                "dof load: BM25's statistics of {collection:?} not folded on {}: {error}; searches are exact, and SELECT dof_compact_stats('{literal}') by the tables' owner folds them",
                connect::describe(target)
            );
        }
    }
}

fn tally(summary: &mut Summary, outcome: Outcome) {
    summary.added += outcome.added;
    summary.updated += outcome.updated;
    summary.unchanged += outcome.unchanged;
    summary.removed += outcome.removed;
    summary.failed.extend(outcome.failed);
}

fn progress_bar(total_bytes: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg}, {bytes_per_sec}, ETA {eta}").expect("a valid template"),
    );
    bar
}

fn print_summary(summary: &Summary, elapsed: Duration) {
    let seconds = elapsed.as_secs_f64().max(1e-9);
    let written = summary.added + summary.updated;
    println!("| added | updated | unchanged | failed | MB read | seconds | documents written/s | MB/s | removed parts |");
    println!("|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | {} | {} | {} | {:.1} | {seconds:.1} | {:.1} | {:.2} | {} |",
        summary.added,
        summary.updated,
        summary.unchanged,
        summary.failed.len(),
        summary.bytes as f64 / 1e6,
        written as f64 / seconds,
        summary.bytes as f64 / 1e6 / seconds,
        summary.removed
    );
    for (source_id, reason) in &summary.failed {
        println!("failed: {source_id}: {reason}");
    }
    for (source_id, reason) in &summary.warnings {
        println!("warning: {source_id}: {reason}");
    }
}

/// Reads every file, classifies it and counts its tokens with the default model's
/// tokenizer (when installed): the pattern distribution and token totals, nothing written.
fn dry_run(args: &LoadArgs, found: Vec<(files::Found, Option<String>)>) -> Summary {
    let tokenizer = dof_core::tokenize::ModelTokenizer::from_file(&dof_core::install::default_tokenizer()).ok();
    let mut summary = Summary::default();
    let mut patterns: BTreeMap<&'static str, (usize, usize, usize)> = BTreeMap::new();
    for (file, problem) in found {
        let read = match problem {
            Some(problem) => Read::Failed(problem),
            None => files::read(&file.path, args.max_file_mb * 1024 * 1024, args.format, args.encoding),
        };
        match read {
            Read::Failed(reason) => summary.failed.push((file.source_id, reason)),
            Read::Ok { parts, bytes, .. } => {
                summary.bytes += bytes;
                for part in parts {
                    let pattern = dof_core::classify::classify(&part.markdown, &dof_core::classify::Thresholds::default()).as_str();
                    let tokens = tokenizer.as_ref().and_then(|t| t.count(&part.markdown).ok()).unwrap_or(0);
                    let entry = patterns.entry(pattern).or_default();
                    *entry = (entry.0 + 1, entry.1 + part.markdown.len(), entry.2 + tokens);
                    summary.added += 1;
                }
            }
        }
    }
    let documents = summary.added.max(1);
    println!("| pattern | documents | % | MB | tokens{} |", if tokenizer.is_some() { "" } else { " (no tokenizer installed)" });
    println!("|---|---|---|---|---|");
    for (pattern, (count, bytes, tokens)) in &patterns {
        println!("| {pattern} | {count} | {:.1} | {:.2} | {tokens} |", 100.0 * *count as f64 / documents as f64, *bytes as f64 / 1e6);
    }
    let tokens: usize = patterns.values().map(|p| p.2).sum();
    println!("| total | {} | 100 | {:.2} | {tokens} |", summary.added, summary.bytes as f64 / 1e6);
    for (source_id, reason) in &summary.failed {
        println!("failed: {source_id}: {reason}");
    }
    summary
}
