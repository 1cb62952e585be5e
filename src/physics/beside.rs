//! Rapier's worlds beside the state (P3): what a step reads besides the
//! world table, held and put back wherever the host holds and puts back
//! a state, so a rewind, an edit of the past, a rollback and a sync test
//! step the bodies exactly as the run that made them.
//!
//! A step steps the rapier world the last step left: its contacts and
//! their impulses carry over, as in any long-lived rapier world. That
//! world is kept beside the table the step wrote (`kept`), so what a step
//! gives depends on the table and on that world. Everything that stands
//! a game at a past moment takes this module's picture of it too: a held
//! state ([`Held`], the same tables) and a keyframe ([`Apart`], where in
//! the state each kept world was). A world met with no rapier world
//! beside it (one made or edited this tick, one loaded from a save) is
//! built afresh from its table; a save makes the running game do the
//! same ([`forget`]), so loading it and playing on is playing straight.

use std::rc::Rc;

use mlua::{Lua, Table, Value};

use super::kept::{self, Inner};
use super::{read, three};

type Two = Inner<read::World>;
type Three = Inner<three::read::World>;

/// The kept rapier worlds at one moment, with the tables they are kept
/// for: a state held in the same VM.
#[derive(Clone, Default)]
pub struct Held {
    two: Option<(Table, Rc<Two>)>,
    three: Option<(Table, Rc<Three>)>,
}

/// Takes the kept worlds as they are now.
pub fn hold(lua: &Lua) -> Held {
    Held {
        two: kept::held(lua),
        three: kept::held(lua),
    }
}

/// Keeps what `held` holds, and nothing else.
pub fn put(lua: &Lua, held: &Held) {
    kept::put(lua, held.two.clone());
    kept::put(lua, held.three.clone());
}

/// Keeps nothing: the next step of any world builds rapier's world from
/// its table, as a world loaded from a save is (H12, P3).
pub fn forget(lua: &Lua) {
    put(lua, &Held::default());
}

/// One step along a path from the state to a table in it.
#[derive(Clone, Debug, PartialEq)]
enum Key {
    Text(Vec<u8>),
    Whole(i64),
    Number(f64),
}

/// The kept rapier worlds at one moment, each with where its table is in
/// the state: a keyframe's, whose state is read back into new tables.
#[derive(Clone, Default)]
pub struct Apart {
    two: Option<(Vec<Key>, Rc<Two>)>,
    three: Option<(Vec<Key>, Rc<Three>)>,
}

impl Apart {
    /// About what the rapier worlds hold, in bytes.
    pub fn bytes(&self) -> usize {
        use kept::Engine;
        self.two.as_ref().map_or(0, |(_, w)| w.engine.bytes())
            + self.three.as_ref().map_or(0, |(_, w)| w.engine.bytes())
    }
}

impl PartialEq for Apart {
    fn eq(&self, other: &Apart) -> bool {
        fn same<T>(a: &Option<(Vec<Key>, Rc<T>)>, b: &Option<(Vec<Key>, Rc<T>)>) -> bool {
            match (a, b) {
                (None, None) => true,
                (Some((p, a)), Some((q, b))) => p == q && Rc::ptr_eq(a, b),
                _ => false,
            }
        }
        same(&self.two, &other.two) && same(&self.three, &other.three)
    }
}

impl std::fmt::Debug for Apart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Apart")
            .field("two", &self.two.as_ref().map(|(path, _)| path))
            .field("three", &self.three.as_ref().map(|(path, _)| path))
            .finish()
    }
}

/// Takes the kept worlds that are in `state` (a kept world the state no
/// longer holds is one no later step can meet).
pub fn apart(lua: &Lua, state: &Value) -> Apart {
    fn place<T>(state: &Value, (table, world): (Table, T)) -> Option<(Vec<Key>, T)> {
        path_to(state, &table).map(|path| (path, world))
    }
    Apart {
        two: kept::held::<read::World>(lua).and_then(|k| place(state, k)),
        three: kept::held::<three::read::World>(lua).and_then(|k| place(state, k)),
    }
}

/// Keeps what `apart` holds beside the tables at its places in `state`,
/// a state read back from the same keyframe; a place whose table does
/// not read as the world kept for it keeps nothing.
pub fn rejoin(lua: &Lua, state: &Value, apart: &Apart) {
    kept::put(lua, joined(lua, state, &apart.two, read::world));
    kept::put(lua, joined(lua, state, &apart.three, three::read::world));
}

fn joined<W: kept::Read + PartialEq>(
    lua: &Lua,
    state: &Value,
    kept: &Option<(Vec<Key>, Rc<Inner<W>>)>,
    read: impl Fn(&Table) -> Result<W, crate::Refusal>,
) -> Option<(Table, Rc<Inner<W>>)> {
    let (path, world) = kept.as_ref()?;
    let table = table_at(lua, state, path)?;
    kept::freeze(lua, &table).ok()?;
    (read(&table).ok()? == world.read).then(|| (table, Rc::clone(world)))
}

/// The most tables [`path_to`] looks through.
const MOST_TABLES: usize = 1 << 20;

/// The shortest path of keys from `state` to `target`, looked for
/// breadth first.
fn path_to(state: &Value, target: &Table) -> Option<Vec<Key>> {
    let Value::Table(root) = state else {
        return None;
    };
    if root == target {
        return Some(Vec::new());
    }
    let mut seen = std::collections::HashSet::new();
    let mut queue = std::collections::VecDeque::from([(root.clone(), Vec::new())]);
    while let Some((table, path)) = queue.pop_front() {
        if !seen.insert(table.to_pointer()) || seen.len() > MOST_TABLES {
            continue;
        }
        for (key, value) in table.pairs::<Value, Value>().flatten() {
            let Value::Table(child) = value else {
                continue;
            };
            let key = match key {
                Value::String(s) => Key::Text(s.as_bytes().to_vec()),
                // mlua's integer is i32 on wasm32.
                #[allow(clippy::useless_conversion)]
                Value::Integer(n) => Key::Whole(i64::from(n)),
                Value::Number(n) => Key::Number(n),
                _ => continue,
            };
            let mut path = path.clone();
            path.push(key);
            if child == *target {
                return Some(path);
            }
            queue.push_back((child, path));
        }
    }
    None
}

/// The table at `path` in `state`.
fn table_at(lua: &Lua, state: &Value, path: &[Key]) -> Option<Table> {
    let mut at = match state {
        Value::Table(t) => t.clone(),
        _ => return None,
    };
    for key in path {
        let next = match key {
            Key::Text(s) => at.raw_get::<Value>(lua.create_string(s).ok()?),
            Key::Whole(n) => at.raw_get::<Value>(*n),
            Key::Number(n) => at.raw_get::<Value>(*n),
        };
        at = match next.ok()? {
            Value::Table(t) => t,
            _ => return None,
        };
    }
    Some(at)
}
