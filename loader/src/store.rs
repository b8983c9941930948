//! Writing documents: one statement per batch (arrays unnested, each row through
//! `dof_put_document`, the database's one writer of documents), one transaction per batch,
//! so a load killed midway keeps every finished batch and a rerun skips them by their
//! content hash (the `content_sha256` column). A changed file updates its row, its metadata
//! replaced by the file's (the triggers re-index it); the unique (collection, source_id)
//! key makes a duplicate impossible. The parts of a changed file that are gone (an EPUB's
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

/// source_id → content hash of the documents the collection holds.
pub fn existing(client: &mut Client, collection: &str) -> Result<HashMap<String, String>, String> {
    let exists = client
        .query_one("SELECT count(*) FROM dof_collections WHERE name = $1", &[&collection])
        .map_err(|e| format!("reading dof_collections: {e} (is pg_dof installed in this database?)"))?;
    if exists.get::<_, i64>(0) == 0 {
        let literal = collection.replace('\'', "''");
        return Err(format!("collection {collection:?} does not exist: INSERT INTO dof_collections (name) VALUES ('{literal}') first"));
    }
    let rows = client
        .query("SELECT source_id, content_sha256 FROM dof_documents WHERE collection = $1", &[&collection])
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
            "SELECT p.action FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(s, b, m, i),
                    LATERAL dof_put_document($1, t.s, NULL, t.b, t.m::jsonb) p
             ORDER BY t.i",
            &[&collection, &ids, &bodies, &metadata],
        )
        .map_err(database_error)?;
    let count = |action: &str| returned.iter().filter(|row| row.get::<_, &str>(0) == action).count();
    let (inserted, updated) = (count("added"), count("updated"));
    let deleted = transaction
        .execute("DELETE FROM dof_documents WHERE collection = $1 AND source_id = ANY ($2)", &[&collection, &removed])
        .map_err(database_error)?;
    transaction.commit().map_err(database_error)?;
    Ok(Written { inserted, updated, deleted })
}

/// Folds the collection's BM25 statistics (`dof_compact_stats`) and returns the rows it
/// removed: the triggers append a delta row per lexeme for each document written, and a
/// search reads every row of its lexemes until they are folded. `None` when another
/// transaction is folding them now (that fold is left to finish; the next one takes the rest).
pub fn fold_statistics(client: &mut Client, collection: &str) -> Result<Option<i64>, String> {
    client.query_one("SELECT dof_compact_stats($1)", &[&collection]).map(|row| row.get(0)).map_err(database_error)
}

fn database_error(error: postgres::Error) -> String {
    error.as_db_error().map_or_else(|| crate::connect::error_chain(&error), |db| format!("{} ({})", db.message(), db.code().code()))
}

#[cfg(test)]
mod tests {
    /// The database has one writer of documents, `dof_put_document` (regress 01 lists the
    /// SQL functions that write `dof_documents`); the loader's statements go through it.
    #[test]
    fn the_loader_writes_documents_only_through_dof_put_document() {
        let sources = [include_str!("main.rs"), include_str!("store.rs"), include_str!("shards.rs"), include_str!("connect.rs")];
        let insert = ["insert", "into", "dof_documents"].join(" ");
        let update = ["update", "dof_documents"].join(" ");
        for source in sources {
            let lower = source.to_lowercase();
            assert!(!lower.contains(&insert) && !lower.contains(&update), "a statement writes dof_documents itself");
        }
        assert!(include_str!("store.rs").contains("LATERAL dof_put_document($1, t.s, NULL, t.b, t.m::jsonb)"));
    }
}
