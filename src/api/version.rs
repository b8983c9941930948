use pgrx::prelude::*;

/// The extension's version (the crate version the shared library was built from).
#[pg_extern(immutable, parallel_safe)]
fn dof_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    #[pg_test]
    fn dof_version_matches_the_installed_extension() {
        let installed = Spi::get_one::<String>("SELECT extversion FROM pg_extension WHERE extname = 'pg_dof'");
        assert_eq!(installed, Ok(Some(env!("CARGO_PKG_VERSION").to_string())));
        assert_eq!(Spi::get_one::<String>("SELECT dof_version()"), Ok(Some(env!("CARGO_PKG_VERSION").to_string())));
    }
}
