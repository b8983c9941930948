//! Writing documents: one statement per batch (arrays unnested into a multi-row insert),
//! one transaction per batch, so a load killed midway keeps every finished batch and a
//! rerun skips them by their content hash (`metadata.content_sha256`). A changed file
//! updates its row (the triggers re-index it); the unique (collection, source_id) key
//! makes a duplicate impossible. The parts of a changed file that are gone (an EPUB's
//! removed chapters) are deleted in the same transaction.

use std::collections::HashMap;

use postgres::Client;

/// A document ready to be written.
pub struct Row {
    pub source_id: String,
    pub body: String,
    pub metadata: serde_json::Value,
}

/// What one transaction writes: documents to add or update, and documents to delete (parts
/// of changed files that are gone).
#[derive(Default)]
pub struct Batch {
    pub rows: Vec<Row>,
    pub removed: Vec<String>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.removed.is_empty()
    }

    /// Every document the batch names, written or removed.
    pub fn source_ids(self) -> impl Iterator<Item = String> {
        self.rows.into_iter().map(|row| row.source_id).chain(self.removed)
    }
}

/// source_id → content hash of the documents the collection holds (None: loaded some other
/// way, without a hash: a rerun updates it once).
pub fn existing(client: &mut Client, collection: &str) -> Result<HashMap<String, Option<String>>, String> {
    let exists = client
        .query_one("SELECT count(*) FROM dof_collections WHERE name = $1", &[&collection])
        .map_err(|e| format!("reading dof_collections: {e} (is pg_dof installed in this database?)"))?;
    if exists.get::<_, i64>(0) == 0 {
        let literal = collection.replace('\'', "''");
        return Err(format!("collection {collection:?} does not exist: INSERT INTO dof_collections (name) VALUES ('{literal}') first"));
    }
    let rows = client
        .query("SELECT source_id, metadata->>'content_sha256' FROM dof_documents WHERE collection = $1", &[&collection])
        .map_err(|e| format!("reading dof_documents: {e}"))?;
    Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// What one transaction wrote: rows inserted, rows updated, documents deleted. A row
/// neither inserted nor updated was already stored with the same content (another load).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub inserted: usize,
    pub updated: usize,
    pub deleted: u64,
}

/// Inserts or updates `rows` and deletes `removed` in one transaction.
pub fn write(client: &mut Client, collection: &str, rows: &[Row], removed: &[String]) -> Result<Written, String> {
    let ids: Vec<&str> = rows.iter().map(|r| r.source_id.as_str()).collect();
    let bodies: Vec<&str> = rows.iter().map(|r| r.body.as_str()).collect();
    let metadata: Vec<String> = rows.iter().map(|r| r.metadata.to_string()).collect();
    let mut transaction = client.transaction().map_err(database_error)?;
    let returned = transaction
        .query(
            "INSERT INTO dof_documents (collection, source_id, body, metadata)
             SELECT $1, s, b, m::jsonb FROM unnest($2::text[], $3::text[], $4::text[]) AS t(s, b, m)
             ON CONFLICT (collection, source_id) DO UPDATE
                SET body = EXCLUDED.body, metadata = dof_documents.metadata || EXCLUDED.metadata, updated_at = now()
                WHERE dof_documents.metadata->>'content_sha256' IS DISTINCT FROM EXCLUDED.metadata->>'content_sha256'
             RETURNING xmax = 0",
            &[&collection, &ids, &bodies, &metadata],
        )
        .map_err(database_error)?;
    let inserted = returned.iter().filter(|row| row.get::<_, bool>(0)).count();
    let deleted = transaction
        .execute("DELETE FROM dof_documents WHERE collection = $1 AND source_id = ANY ($2)", &[&collection, &removed])
        .map_err(database_error)?;
    transaction.commit().map_err(database_error)?;
    Ok(Written { inserted, updated: returned.len() - inserted, deleted })
}

fn database_error(error: postgres::Error) -> String {
    error.as_db_error().map_or_else(|| crate::connect::error_chain(&error), |db| format!("{} ({})", db.message(), db.code().code()))
}
