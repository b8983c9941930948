//! Connecting like psql: a connection string (`--connection`, key=value or URI), else the
//! libpq environment variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD), else the
//! local socket as the current user. What is printed never holds the password.

use postgres::{Client, Config, NoTls};

pub fn config(connection: Option<&str>) -> Result<Config, String> {
    let mut config = match connection {
        Some(text) => text.parse::<Config>().map_err(|e| format!("--connection: {e}"))?,
        None => Config::new(),
    };
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    if config.get_hosts().is_empty() {
        match env("PGHOST") {
            Some(hosts) => hosts.split(',').for_each(|h| {
                config.host(h);
            }),
            None => {
                config.host("/var/run/postgresql");
            }
        }
    }
    if config.get_ports().is_empty() {
        if let Some(port) = env("PGPORT") {
            config.port(port.parse().map_err(|_| format!("PGPORT {port:?} is not a port"))?);
        }
    }
    if config.get_user().is_none() {
        let user = env("PGUSER").or_else(|| env("USER")).unwrap_or_else(|| "postgres".into());
        config.user(&user);
    }
    if config.get_dbname().is_none() {
        let user = config.get_user().unwrap_or("postgres").to_string();
        config.dbname(env("PGDATABASE").as_deref().unwrap_or(&user));
    }
    if config.get_password().is_none() {
        if let Some(password) = env("PGPASSWORD") {
            config.password(password);
        }
    }
    config.application_name("dof load");
    Ok(config)
}

/// Where `config` points, for messages: host(s), port, database and user; no password.
pub fn describe(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            postgres::config::Host::Tcp(name) => name.clone(),
            postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!("database {} on {}:{port} as {}", config.get_dbname().unwrap_or("?"), hosts.join(","), config.get_user().unwrap_or("?"))
}

pub fn connect(config: &Config) -> Result<Client, String> {
    config.connect(NoTls).map_err(|e| format!("cannot connect to {}: {}", describe(config), error_chain(&e)))
}

/// Runs `work` on `client`; when it fails because the connection was lost (a server
/// restart, `pg_terminate_backend`), connects again once and runs it once more. Returns
/// whether it connected again, with the result. The coordinator connection and every
/// writer's connection go through it.
pub fn again_if_lost<T>(
    client: &mut Client,
    config: &Config,
    mut work: impl FnMut(&mut Client) -> Result<T, String>,
) -> (bool, Result<T, String>) {
    let result = work(client);
    if result.is_ok() || !client.is_closed() {
        return (false, result);
    }
    match connect(config) {
        Ok(fresh) => {
            *client = fresh;
            (true, work(client))
        }
        Err(error) => (false, Err(error)),
    }
}

/// An error with every cause it carries ("db error: FATAL: password authentication failed
/// for user ..."; the postgres crate's own text is only "db error").
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let more = inner.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        cause = inner.source();
    }
    text
}
