//! The guard against a careless drop of pg_dof: the data tables are extension members (so
//! `pg_dump` keeps their rows and `CREATE EXTENSION` recreates them), and a member table
//! goes with the extension. A `ddl_command_start` event trigger sees the statement before
//! anything is dropped and refuses, while documents are stored, every statement that would
//! take pg_dof with it, unless `pg_dof.allow_drop` is on in that session:
//! - `DROP EXTENSION pg_dof`, with or without CASCADE;
//! - any `DROP ... CASCADE` whose objects pg_dof depends on in any way: an extension it
//!   requires (`vector`, `unaccent`), `plpgsql` (its functions are written in it), its
//!   schema, a type or language it uses — found by walking `pg_depend` from the objects
//!   named, as PostgreSQL's own cascade does ([`drop_reaches_pg_dof`]);
//! - `DROP OWNED BY` a role that owns pg_dof (or, with CASCADE, owns anything it depends on).
//!
//! The trigger is `ENABLE ALWAYS` (`sql/drop_guard.sql`), so `session_replication_role = replica`
//! does not switch it off. The trigger function is C because only C can read the
//! statement's parse tree (which objects are being dropped, with CASCADE or not).

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

/// The event trigger function (`sql/drop_guard.sql` creates it and the trigger).
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
    if !tree.is_null() && unsafe { drops_pg_dof(tree) } {
        refuse_if_documents();
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

/// Whether the statement would drop pg_dof, by what it names (see the module comment).
///
/// # Safety
/// `tree` is a parse tree node of the statement being run.
unsafe fn drops_pg_dof(tree: *mut pg_sys::Node) -> bool {
    if unsafe { pgrx::is_a(tree, pg_sys::NodeTag::T_DropStmt) } {
        let stmt = unsafe { &*(tree as *mut pg_sys::DropStmt) };
        let cascade = stmt.behavior == pg_sys::DropBehavior::DROP_CASCADE;
        if stmt.removeType == pg_sys::ObjectType::OBJECT_EXTENSION && unsafe { names(stmt.objects) }.iter().any(|name| name == "pg_dof") {
            return true;
        }
        // without CASCADE, PostgreSQL itself refuses to drop what pg_dof depends on
        cascade
            && unsafe { addresses(stmt) }
                .into_iter()
                .any(|(class, object)| drop_reaches_pg_dof(OBJECT_START, &[class.into(), object.into()]))
    } else if unsafe { pgrx::is_a(tree, pg_sys::NodeTag::T_DropOwnedStmt) } {
        let stmt = unsafe { &*(tree as *mut pg_sys::DropOwnedStmt) };
        let roles = unsafe { roles(stmt.roles) };
        if stmt.behavior == pg_sys::DropBehavior::DROP_CASCADE {
            roles.into_iter().any(|role| drop_reaches_pg_dof(OWNED_START, &[role.into()]))
        } else {
            // without CASCADE only what the role owns goes: pg_dof if it is the owner
            roles.into_iter().any(owns_pg_dof)
        }
    } else {
        false
    }
}

/// Relations are left out: pg_dof's objects depend on no table of the user's, and looking
/// a relation up here would lock it before the drop does.
const RELATION_KINDS: [pg_sys::ObjectType::Type; 6] = [
    pg_sys::ObjectType::OBJECT_TABLE,
    pg_sys::ObjectType::OBJECT_VIEW,
    pg_sys::ObjectType::OBJECT_MATVIEW,
    pg_sys::ObjectType::OBJECT_INDEX,
    pg_sys::ObjectType::OBJECT_SEQUENCE,
    pg_sys::ObjectType::OBJECT_FOREIGN_TABLE,
];

/// The catalog addresses (class, object id) of a DROP statement's objects that exist.
unsafe fn addresses(stmt: &pg_sys::DropStmt) -> Vec<(pg_sys::Oid, pg_sys::Oid)> {
    if stmt.objects.is_null() || RELATION_KINDS.contains(&stmt.removeType) {
        return Vec::new();
    }
    let list = unsafe { &*stmt.objects };
    (0..list.length as usize)
        .filter_map(|i| {
            let node = unsafe { (*list.elements.add(i)).ptr_value as *mut pg_sys::Node };
            let mut relation: pg_sys::Relation = std::ptr::null_mut();
            // missing_ok: a name that does not exist is the drop's own error to report;
            // the lock the drop itself takes on the object next (RemoveObjects), so it is
            // not upgraded between the two
            let lock = pg_sys::AccessExclusiveLock as pg_sys::LOCKMODE;
            let address = unsafe { pg_sys::get_object_address(stmt.removeType, node, &mut relation, lock, true) };
            (address.objectId != pg_sys::InvalidOid).then_some((address.classId, address.objectId))
        })
        .collect()
}

/// The role ids of a DROP OWNED statement that exist.
unsafe fn roles(list: *mut pg_sys::List) -> Vec<pg_sys::Oid> {
    if list.is_null() {
        return Vec::new();
    }
    let list = unsafe { &*list };
    (0..list.length as usize)
        .map(|i| unsafe { pg_sys::get_rolespec_oid((*list.elements.add(i)).ptr_value as *mut pg_sys::RoleSpec, true) })
        .filter(|role| *role != pg_sys::InvalidOid)
        .collect()
}

fn owns_pg_dof(role: pg_sys::Oid) -> bool {
    Spi::get_one_with_args::<bool>(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'pg_dof' AND extowner = $1)",
        &[role.into()],
    )
    .unwrap_or_else(|e| guard_failed(e))
    .unwrap_or(false)
}

/// The object a DROP ... CASCADE names ($1 class, $2 object id).
const OBJECT_START: &str = "SELECT $1::oid, $2::oid";
/// What DROP OWNED BY $1 drops: every object of this database the role owns.
const OWNED_START: &str = "SELECT s.classid, s.objid FROM pg_catalog.pg_shdepend s
    WHERE s.refclassid = 'pg_catalog.pg_authid'::regclass AND s.refobjid = $1::oid AND s.deptype = 'o'
      AND s.dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())";

/// Whether dropping the objects `start` selects (class, object id) with CASCADE would drop
/// pg_dof: the closure over `pg_depend` of everything depending on them (downwards, as the
/// cascade goes) and of what a dropped object is a member or an internal part of
/// (upwards: dropping a member of an extension drops the extension), reaching pg_dof.
fn drop_reaches_pg_dof(start: &str, args: &[pgrx::datum::DatumWithOid]) -> bool {
    let query = format!(
        "WITH RECURSIVE doomed(classid, objid) AS (
             {start}
             UNION
             SELECT CASE WHEN d.refclassid = x.classid AND d.refobjid = x.objid THEN d.classid ELSE d.refclassid END,
                    CASE WHEN d.refclassid = x.classid AND d.refobjid = x.objid THEN d.objid ELSE d.refobjid END
             FROM doomed x JOIN pg_catalog.pg_depend d
               ON (d.refclassid = x.classid AND d.refobjid = x.objid)
               OR (d.classid = x.classid AND d.objid = x.objid AND d.deptype IN ('e', 'i'))
         )
         SELECT EXISTS (SELECT 1 FROM doomed x JOIN pg_catalog.pg_extension e ON e.oid = x.objid
                        WHERE x.classid = 'pg_catalog.pg_extension'::regclass AND e.extname = 'pg_dof')"
    );
    Spi::get_one_with_args::<bool>(&query, args).unwrap_or_else(|e| guard_failed(e)).unwrap_or(false)
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
