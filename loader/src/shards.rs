//! Loading through a pg_dof_coordinator: the coordinator names the shards and which one
//! owns each document (`dof_shard_of`, PL/Proxy's own mapping); the documents are written
//! to the shards directly, in parallel, so the coordinator carries no document body.

use postgres::{Client, Config};

use crate::{connect, store};

/// One connection configuration per shard, in shard order: the coordinator's list of
/// connection strings, with the coordinator connection's user and password where a shard's
/// string names none (PL/Proxy, too, connects as the calling user).
pub fn targets(coordinator: &mut Client, config: &Config) -> Result<Vec<Config>, String> {
    let row = coordinator
        .query_one("SELECT dof_cluster_connections()", &[])
        .map_err(|e| format!("reading the shards from the coordinator: {e} (is pg_dof_coordinator installed in this database?)"))?;
    let connections: Vec<String> = row.get(0);
    if connections.is_empty() {
        return Err("the coordinator has no shards: SELECT dof_cluster_set_shards(...) first".into());
    }
    connections
        .iter()
        .map(|text| {
            let mut shard: Config = text.parse().map_err(|e| format!("a shard's connection string: {e}"))?;
            if shard.get_user().is_none() {
                shard.user(config.get_user().unwrap_or("postgres"));
            }
            if shard.get_password().is_none() {
                if let Some(password) = config.get_password() {
                    shard.password(password);
                }
            }
            shard.application_name("dof load");
            // check it now, with the shard named, rather than in every writer
            connect::connect(&shard).map(|_| shard)
        })
        .collect()
}

/// The shard owning each of a batch's documents, rows then removed ones (one round trip to
/// the coordinator per batch).
pub fn owners(coordinator: &mut Client, batch: &store::Batch, shards: usize) -> Result<Vec<usize>, String> {
    let ids: Vec<&str> = batch.rows.iter().map(|row| row.source_id.as_str()).chain(batch.removed.iter().map(String::as_str)).collect();
    let owners: Vec<usize> = coordinator
        .query("SELECT dof_shard_of(s) FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i) ORDER BY i", &[&ids])
        .map_err(|e| format!("asking the coordinator for the shards: {}", crate::connect::error_chain(&e)))?
        .into_iter()
        .map(|row| usize::try_from(row.get::<_, i32>(0)).map_err(|_| "a negative shard number".to_string()))
        .collect::<Result<_, _>>()?;
    if let Some(shard) = owners.iter().find(|&&shard| shard >= shards) {
        return Err(format!("shard {shard} is not among the {shards} the coordinator listed"));
    }
    Ok(owners)
}

/// Splits a batch by the owners [`owners`] gave, one batch per shard.
pub fn split(batch: store::Batch, owners: &[usize], shards: usize) -> Vec<store::Batch> {
    let mut parts: Vec<store::Batch> = (0..shards).map(|_| store::Batch::default()).collect();
    let (row_owners, removed_owners) = owners.split_at(batch.rows.len());
    for (entry, &shard) in batch.rows.into_iter().zip(row_owners) {
        parts[shard].rows.push(entry);
    }
    for (source_id, &shard) in batch.removed.into_iter().zip(removed_owners) {
        parts[shard].removed.push(source_id);
    }
    parts
}
