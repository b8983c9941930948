//! The guard against a careless `DROP EXTENSION pg_dof`: the data tables are extension
//! members (so `pg_dump` keeps their rows and `CREATE EXTENSION` recreates them), and a
//! member table goes with the extension. A `ddl_command_start` event trigger sees the
//! statement before anything is dropped and refuses, while documents are stored, every
//! statement that would drop pg_dof: `DROP EXTENSION pg_dof`, `DROP EXTENSION vector
//! CASCADE` (pg_dof requires it) and `DROP SCHEMA <pg_dof's schema> CASCADE`, unless
//! `pg_dof.allow_drop` is on in that session. The trigger function is C because only C can
//! read the statement's parse tree (which names are being dropped, with CASCADE or not).

use std::ffi::CStr;

use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

use super::errors::raise;

/// `Pg_finfo_record` of the event trigger function: the version-1 calling convention.
#[no_mangle]
#[doc(hidden)]
pub extern "C" fn pg_finfo_dof_drop_guard() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}

/// The event trigger function (`sql/guard.sql` creates it and the trigger).
///
/// # Safety
/// Called by PostgreSQL's function manager as an event trigger, with `fcinfo->context` an
/// `EventTriggerData`.
#[pg_guard]
#[no_mangle]
pub unsafe extern "C-unwind" fn dof_drop_guard(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    let context = unsafe { (*fcinfo).context };
    if context.is_null() || !unsafe { pgrx::is_a(context, pg_sys::NodeTag::T_EventTriggerData) } {
        raise(PgSqlErrorCode::ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED, "dof_drop_guard() is an event trigger".into(), None);
    }
    let tree = unsafe { (*(context as *mut pg_sys::EventTriggerData)).parsetree };
    if !tree.is_null() && unsafe { pgrx::is_a(tree, pg_sys::NodeTag::T_DropStmt) } {
        let stmt = unsafe { &*(tree as *mut pg_sys::DropStmt) };
        let names = unsafe { names(stmt.objects) };
        let cascade = stmt.behavior == pg_sys::DropBehavior::DROP_CASCADE;
        let drops_pg_dof = match stmt.removeType {
            pg_sys::ObjectType::OBJECT_EXTENSION => names.iter().any(|name| name == "pg_dof" || (cascade && required_by_pg_dof(name))),
            pg_sys::ObjectType::OBJECT_SCHEMA => cascade && names.iter().any(|name| holds_pg_dof(name)),
            _ => false,
        };
        if drops_pg_dof {
            refuse_if_documents();
        }
    }
    pg_sys::Datum::from(0)
}

/// The plain names of a DROP statement's object list (extensions and schemas are `String`
/// nodes); qualified names of other object kinds are skipped.
unsafe fn names(list: *mut pg_sys::List) -> Vec<String> {
    if list.is_null() {
        return Vec::new();
    }
    let list = unsafe { &*list };
    (0..list.length as usize)
        .filter_map(|i| {
            let node = unsafe { (*list.elements.add(i)).ptr_value as *mut pg_sys::Node };
            (!node.is_null() && unsafe { pgrx::is_a(node, pg_sys::NodeTag::T_String) })
                .then(|| unsafe { CStr::from_ptr((*(node as *mut pg_sys::String)).sval) }.to_string_lossy().into_owned())
        })
        .collect()
}

fn required_by_pg_dof(extension: &str) -> bool {
    Spi::get_one_with_args::<bool>(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                          JOIN pg_catalog.pg_extension me ON me.oid = d.objid AND me.extname = 'pg_dof'
                          JOIN pg_catalog.pg_extension it ON it.oid = d.refobjid AND it.extname = $1
                         WHERE d.classid = 'pg_catalog.pg_extension'::regclass
                           AND d.refclassid = 'pg_catalog.pg_extension'::regclass)",
        &[extension.into()],
    )
    .unwrap_or_else(|e| guard_failed(e))
    .unwrap_or(false)
}

/// The schema pg_dof is installed in.
fn pg_dof_schema() -> Option<String> {
    Spi::get_one::<String>(
        "SELECT n.nspname::text FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
          WHERE e.extname = 'pg_dof'",
    )
    .unwrap_or_else(|e| guard_failed(e))
}

/// A failed look-up refuses the drop rather than letting it through unchecked.
fn guard_failed(error: pgrx::spi::SpiError) -> ! {
    raise(PgSqlErrorCode::ERRCODE_INTERNAL_ERROR, format!("dof_drop_guard could not check what the drop would delete: {error}"), None)
}

fn holds_pg_dof(schema: &str) -> bool {
    pg_dof_schema().as_deref() == Some(schema)
}

fn refuse_if_documents() {
    if crate::guc::allow_drop() {
        return;
    }
    // the table owner (who alone may drop the extension) sees every row through RLS
    let stored = stored_documents();
    if stored == 0 {
        return;
    }
    raise(
        PgSqlErrorCode::ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST,
        format!("dropping pg_dof would delete its {stored} stored documents with their chunks and embeddings"),
        Some("back them up with pg_dump first; to drop them anyway, SET pg_dof.allow_drop = on in this session".into()),
    );
}

fn stored_documents() -> i64 {
    let Some(schema) = pg_dof_schema() else { return 0 };
    let count = format!("SELECT count(*) FROM {}.dof_documents", pgrx::spi::quote_identifier(schema));
    Spi::get_one::<i64>(&count).unwrap_or_else(|e| guard_failed(e)).unwrap_or(0)
}
