//! The only place with `#[pg_extern]`: parse arguments, call the core, convert the
//! result, map errors to SQLSTATEs.

mod embed;
mod errors;
mod version;

pgrx::extension_sql_file!("../../sql/embed.sql", name = "embed", requires = [embed::dof_embed_query_real, version::dof_version]);
