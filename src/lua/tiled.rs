//! The native half of `@moonloop/tiled`: reads a Tiled JSON map or
//! tileset (`.tmj`, `.tsj`, `.json`) from the game folder through the
//! asset door and decodes it into plain tables. The Luau half
//! (runtime/tiled.luau) checks the document and shapes it for drawing and
//! collision.

use mlua::{Lua, Table, Value};

use super::require::Modules;

/// The largest map or tileset file read: a 1,024 x 1,024 map of
/// four-digit tiles is about 5 MiB of JSON.
pub const MAX_MAP: u64 = 16 << 20;

/// The table the Luau half receives.
pub fn native(lua: &Lua) -> mlua::Result<Table> {
    let table = lua.create_table()?;
    table.raw_set(
        "read",
        // The document, or nil and why not: the Luau half raises it at
        // the author's line, with its own checks' messages.
        lua.create_function(
            |lua, name: Value| -> mlua::Result<(Value, Option<String>)> {
                Ok(match read(lua, &name) {
                    Ok(value) => (value, None),
                    Err(why) => (Value::Nil, Some(why)),
                })
            },
        )?,
    )?;
    table.set_readonly(true);
    Ok(table)
}

fn read(lua: &Lua, name: &Value) -> Result<Value, String> {
    let Value::String(name) = name else {
        return Err("the map's name should be a string, such as \"maps/level1.tmj\"".into());
    };
    let name = name.to_string_lossy();
    let rel = crate::assets::check_name(&name)?;
    let lower = name.to_ascii_lowercase();
    if ![".tmj", ".tsj", ".json"]
        .iter()
        .any(|ext| lower.ends_with(ext))
    {
        return Err(format!(
            "`{}` is not a Tiled JSON file (.tmj, .tsj or .json; save the map as JSON in Tiled)",
            crate::terminal::escape(&name)
        ));
    }
    let root = lua
        .app_data_ref::<Modules>()
        .map(|modules| modules.root().to_path_buf())
        .ok_or("no game folder to read from")?;
    let path = crate::assets::find_rel(&root, rel, "map")?;
    let bytes = crate::assets::read_path(&path, &name, MAX_MAP)?;
    if let Some(mut modules) = lua.app_data_mut::<Modules>() {
        modules.note_read(rel);
    }
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| format!("`{}` is not UTF-8 text", crate::terminal::escape(&name)))?;
    crate::state::from_json(lua, text)
        .map_err(|why| format!("{}: {why}", crate::terminal::escape(&name)))
}
