#![doc = include_str!("../README.md")]
//! The pgrx layer: settings, the SQL functions in [`api`], and the per-backend model cache.
//! All algorithms live in the `dof_core` crate.

mod api;
mod backend_models;
mod guc;
mod ingest_priority;
mod query_cache;
mod queue_launcher;
mod queue_workers;
mod sentence_cache;
mod server_version;
mod vector_cache;

::pgrx::pg_module_magic!(name, version);

#[pgrx::pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // Settings, the queue's launcher and, in the postmaster, the tokenizer every backend
    // will share if pg_dof.preload_tokenizer names one: the setting exists only when
    // shared_preload_libraries loads pg_dof, so elsewhere this loads nothing. Loading it
    // starts no thread. ONNX Runtime is never started here (the postmaster would fork with
    // live threads); each backend loads it on first use.
    guc::init();
    queue_launcher::register();
    backend_models::preload_tokenizer();
}

#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
