//! Connecting like psql: a connection string (`--connection`, key=value or URI), else the
//! libpq environment variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD), else the
//! local socket as the current user; without a password, the password file (PGPASSFILE or
//! ~/.pgpass); `sslmode=require` (or PGSSLMODE) connects over TLS, checking the server's
//! certificate (PGSSLROOTCERT adds roots). What is printed never holds the password.

use postgres::config::SslMode;
use postgres::{Client, Config, NoTls};
use postgres_native_tls::MakeTlsConnector;

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
    if config.get_ssl_mode() == SslMode::Prefer {
        match env("PGSSLMODE").as_deref() {
            Some("require") => {
                config.ssl_mode(SslMode::Require);
            }
            Some("disable") => {
                config.ssl_mode(SslMode::Disable);
            }
            Some(mode) if mode != "prefer" => return Err(format!("PGSSLMODE {mode:?}: dof load takes disable, prefer or require")),
            _ => {}
        }
    }
    if config.get_password().is_none() {
        if let Some(password) = env("PGPASSWORD").or_else(|| password_file_entry(&config)) {
            config.password(password);
        }
    }
    config.application_name("dof load");
    Ok(config)
}

/// The password the password file (`PGPASSFILE`, else `~/.pgpass`) holds for `config`'s
/// first host, port, database and user, as libpq reads it: a socket connection matches the
/// host name `localhost`; a file that others can read is ignored, with a warning, as libpq
/// ignores it.
fn password_file_entry(config: &Config) -> Option<String> {
    use postgres_secrets::PgPass;
    let path = PgPass::locate()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            eprintln!(
                "dof load: WARNING: password file \"{}\" has group or world access; permissions should be u=rw (0600) or less: not read",
                path.display()
            );
            return None;
        }
    }
    let file = match PgPass::open(&path) {
        Ok(file) => file,
        Err(error) => {
            eprintln!("dof load: WARNING: password file \"{}\" not read: {error}", path.display());
            return None;
        }
    };
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(name)) => name.clone(),
        _ => "localhost".to_string(),
    };
    let query = file
        .query()
        .hostname(host)
        .and_then(|q| q.port(config.get_ports().first().copied().unwrap_or(5432)))
        .and_then(|q| q.database(config.get_dbname().unwrap_or_default()))
        .and_then(|q| q.username(config.get_user().unwrap_or_default()))
        .ok()?;
    query.find().ok().flatten().map(|credentials| credentials.password)
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

/// Connects: over TLS when `sslmode=require` (the connection string or PGSSLMODE), the
/// server's certificate checked against the platform's roots (OpenSSL's store) and the
/// certificates in PGSSLROOTCERT, if set; else in the clear, as before 0.3.0 (`prefer`
/// does not try TLS: a server whose certificate cannot be checked would fail instead of
/// falling back).
pub fn connect(config: &Config) -> Result<Client, String> {
    let failed = |e: postgres::Error| format!("cannot connect to {}: {}", describe(config), error_chain(&e));
    match config.get_ssl_mode() {
        SslMode::Require => config.connect(tls()?).map_err(|e| {
            let text = failed(e);
            if text.contains("certificate verify failed") {
                format!("{text} (the server's certificate is not signed by a root the platform trusts: PGSSLROOTCERT=FILE adds a CA)")
            } else {
                text
            }
        }),
        _ => config.connect(NoTls).map_err(failed),
    }
}

/// The TLS connector of `sslmode=require`: the platform's roots, plus PGSSLROOTCERT's.
fn tls() -> Result<MakeTlsConnector, String> {
    let mut builder = native_tls::TlsConnector::builder();
    if let Some(path) = std::env::var_os("PGSSLROOTCERT").filter(|p| !p.is_empty()) {
        let shown = std::path::Path::new(&path).display().to_string();
        let pem = std::fs::read(&path).map_err(|e| format!("PGSSLROOTCERT {shown}: {e}"))?;
        let roots = native_tls::Certificate::stack_from_pem(&pem).map_err(|e| format!("PGSSLROOTCERT {shown}: {e}"))?;
        if roots.is_empty() {
            return Err(format!("PGSSLROOTCERT {shown}: no PEM certificate in it"));
        }
        roots.into_iter().for_each(|root| {
            builder.add_root_certificate(root);
        });
    }
    builder.build().map(MakeTlsConnector::new).map_err(|e| format!("TLS: {}", error_chain(&e)))
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
    // a terminated backend's FATAL can come back before the client has seen the socket
    // close (seen once in CI: no reconnect, 152 of 300 files lost): ask the connection
    if result.is_ok() || (!client.is_closed() && client.is_valid(std::time::Duration::from_secs(5)).is_ok()) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_password_file_is_read_as_libpq_reads_it() {
        let file = std::env::temp_dir().join(format!("dof-pgpass-{}", std::process::id()));
        std::fs::write(&file, "otro:5432:*:*:nope\nlocalhost:5499:pg_dof:carga:s3creto\\:x\n*:*:*:*:comodin\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        // only this test sets PGPASSFILE
        std::env::set_var("PGPASSFILE", &file);
        let socket: Config = "host=/tmp port=5499 dbname=pg_dof user=carga".parse().unwrap();
        assert_eq!(password_file_entry(&socket).as_deref(), Some("s3creto:x"), "a socket matches localhost; \\: is a colon");
        let tcp: Config = "host=db.example port=5432 dbname=x user=y".parse().unwrap();
        assert_eq!(password_file_entry(&tcp).as_deref(), Some("comodin"), "wildcards match, first line that matches wins");
        std::env::remove_var("PGPASSWORD");
        assert_eq!(config(Some("host=/tmp port=5499 dbname=pg_dof user=carga")).unwrap().get_password(), Some(&b"s3creto:x"[..]));
        let given = config(Some("host=/tmp port=5499 dbname=pg_dof user=carga password=dado")).unwrap();
        assert_eq!(given.get_password(), Some(&b"dado"[..]), "a password given is not replaced");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(password_file_entry(&socket), None, "a file others can read is ignored");
        std::env::remove_var("PGPASSFILE");
        std::fs::remove_file(&file).unwrap();
    }
}
