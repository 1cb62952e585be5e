//! Tests of `state`.

use super::*;
use mlua::Table;

#[test]
fn the_in_place_walk_is_gated_on_the_audited_luau() {
    // A Luau update (a `cargo update` can bring one) fails here, so the
    // audit in state/layout.rs cannot be forgotten; until it is done,
    // the walk asks the API.
    assert_eq!(
        ffi::luau_version(),
        Some(layout::AUDITED_LUAU),
        "Luau changed: read state/layout.rs against it, then move AUDITED_LUAU"
    );
}

#[test]
fn the_vendored_luau_tables_can_be_read_in_place() {
    // A Luau update that moves a field of its tables fails here; the
    // walk would still be right, only slower.
    let known = tables_read_in_place(&Lua::new()).unwrap();
    assert!(known, "update the mirror structs in state/layout.rs");
}

/// A sandboxed VM (its libraries frozen) with the walk that reads in
/// place or the one that asks the API.
fn vm(in_place: bool) -> Lua {
    let lua = Lua::new();
    install(&lua).unwrap();
    install_take(&lua, in_place).unwrap();
    lua.sandbox(true).unwrap();
    lua
}

/// Takes what `chunk` returns with the walk that reads in place or the
/// one that asks the API; returns the refusal, or whether every table
/// in the value ended frozen.
fn take_with(in_place: bool, chunk: &str) -> Result<bool, String> {
    let lua = vm(in_place);
    let value: Value = lua.load(chunk).eval().unwrap();
    take(&lua, &value)?;
    let all_frozen: mlua::Function = lua
        .load(
            r#"
            local function frozen(v, seen)
                if type(v) ~= "table" or seen[v] then return true end
                seen[v] = true
                if not table.isfrozen(v) then return false end
                for k, x in v do
                    if not frozen(k, seen) or not frozen(x, seen) then return false end
                end
                return true
            end
            return function(v) return frozen(v, {}) end
            "#,
        )
        .eval()
        .unwrap();
    Ok(all_frozen.call(value).unwrap())
}

// rule: S2, S5
#[test]
fn both_walks_freeze_and_refuse_alike() {
    let cases: &[(&str, Result<bool, &str>)] = &[
        ("return 3", Ok(true)),
        (
            "return { 1, 'two', true, vector.create(1, 2, 3), { a = { b = {} } }, n = 1.5, [7] = {} }",
            Ok(true),
        ),
        (
            "local t = {} for i = 1, 100 do t[i] = { x = i, y = { i } } end return { list = t }",
            Ok(true),
        ),
        (
            "local t = { [0.5] = 1 } for i = 1, 40 do t['k' .. i] = { i } end return t",
            Ok(true),
        ),
        (
            "local t = {} for i = 1, 100 do t[i] = { x = i } end t[50].f = print return t",
            Err("state[50].f is a function"),
        ),
        ("return { 1, 2, print }", Err("state[3] is a function")),
        (
            "return { a = { b = { c = print } } }",
            Err("state.a.b.c is a function"),
        ),
        (
            "return { [1.5] = { ['odd key'] = coroutine.create(print) } }",
            Err("state[1.5][\"odd key\"] is a thread (coroutine)"),
        ),
        (
            "return { m = setmetatable({}, {}) }",
            Err("state.m has a metatable"),
        ),
        (
            "return { [true] = 1 }",
            Err("state has a key that is a boolean"),
        ),
        (
            "return { inner = { [{}] = 1 } }",
            Err("state.inner has a key that is a table"),
        ),
        (
            "local t = { a = {} } t.a.back = t return t",
            Err("state.a.back refers back"),
        ),
        (
            "return { f = table.freeze({ g = print }) }",
            Err("state.f.g is a function"),
        ),
        ("return { f = table.freeze({ g = { 1 } }) }", Ok(true)),
        (
            "return { f = table.freeze({ g = { print } }) }",
            Err("state.f.g[1] is a function"),
        ),
        ("return { m = math }", Err("state.m.")),
        (
            "local t = {} for i = 1, 250 do t = { t } end return t",
            Err("nests more than 200 tables deep"),
        ),
    ];
    for (chunk, expected) in cases {
        for in_place in [true, false] {
            let got = take_with(in_place, chunk);
            match (expected, &got) {
                (Ok(frozen), Ok(got)) => {
                    assert_eq!(frozen, got, "{chunk} (in place: {in_place})")
                }
                (Err(part), Err(message)) => assert!(
                    message.contains(part),
                    "{chunk} (in place: {in_place}): {message}"
                ),
                _ => panic!("{chunk} (in place: {in_place}): {got:?}, expected {expected:?}"),
            }
        }
    }
}

// rule: S2
#[test]
fn checked_tables_are_not_walked_again() {
    for in_place in [true, false] {
        let lua = vm(in_place);
        let old: Table = lua.load("return { kept = { 1 } }").eval().unwrap();
        take(&lua, &Value::Table(old.clone())).unwrap();
        // Reach behind the freeze and the checked mark: a function
        // slipped into a table an earlier take checked is not looked at
        // again, which shows the walk stopped there.
        let kept: Table = old.raw_get("kept").unwrap();
        kept.set_readonly(false);
        kept.raw_set(2, lua.create_function(|_, ()| Ok(())).unwrap())
            .unwrap();
        kept.set_readonly(true);
        if in_place {
            // Unfreezing cleared the mark kept in the table; put it back.
            // SAFETY: `kept` is the table in slot 1, alive, and no Luau
            // runs while its mark is set.
            unsafe {
                lua.exec_raw::<()>(&kept, |state| {
                    RawTable::at(state, 1).mark_checked();
                })
                .unwrap();
            }
        }
        let next: Value = lua
            .load("local old = ... return { kept = old.kept, new = {} }")
            .call(&old)
            .unwrap();
        take(&lua, &next).expect("the checked subtable was skipped");
        // Without the mark, frozen is not checked.
        if in_place {
            kept.set_readonly(false);
            kept.set_readonly(true);
            let again: Value = lua
                .load("local old = ... return { kept = old.kept }")
                .call(&old)
                .unwrap();
            let err = take(&lua, &again).unwrap_err();
            assert!(err.contains("state.kept[2] is a function"), "{err}");
        }
    }
}

// rule: S5
#[test]
fn a_refused_table_is_refused_every_time() {
    let cases = [
        (
            "return { a = { b = { c = print } }, ok = { 1 } }",
            "state.a.b.c is a function",
        ),
        // The value under the bad key passes, and is marked checked.
        ("return { [{}] = {} }", "state has a key that is a table"),
        (
            "return { inner = { [{}] = { 1 } } }",
            "state.inner has a key that is a table",
        ),
    ];
    for (chunk, message) in cases {
        for in_place in [true, false] {
            let lua = vm(in_place);
            let value: Value = lua.load(chunk).eval().unwrap();
            for _ in 0..3 {
                let err = take(&lua, &value).unwrap_err();
                assert!(
                    err.contains(message),
                    "{chunk} (in place: {in_place}): {err}"
                );
            }
        }
    }
}

#[test]
fn type_names_are_luau_s() {
    let lua = Lua::new();
    assert_eq!(type_of(&Value::Integer(3)), "number");
    assert_eq!(
        type_of(&Value::String(lua.create_string("x").unwrap())),
        "string"
    );
    assert_eq!(type_of(&Value::Table(lua.create_table().unwrap())), "table");
    assert_eq!(type_of(&Value::Nil), "nil");
}

// rule: S2
#[test]
fn a_copier_copies_what_is_new_and_reuses_the_copies_of_frozen_tables() {
    let from = Lua::new();
    let into = Lua::new();
    let first: Table = from
        .load("local still = table.freeze({ x = 1, deep = table.freeze({ y = 2 }) }) return table.freeze({ still = still, moving = table.freeze({ n = 1 }) })")
        .eval()
        .unwrap();
    let still: Table = first.get("still").unwrap();
    let second: Table = from
        .load("local still = ... return table.freeze({ still = still, moving = table.freeze({ n = 2 }) })")
        .call(still)
        .unwrap();
    let mut copier = Copier::default();
    let a = copier.copy(&from, &Value::Table(first), &into).unwrap();
    let b = copier.copy(&from, &Value::Table(second), &into).unwrap();
    let (Value::Table(a), Value::Table(b)) = (a, b) else {
        panic!("tables");
    };
    let part = |t: &Table, k: &str| t.get::<Table>(k).unwrap();
    assert_eq!(
        part(&a, "still").to_pointer(),
        part(&b, "still").to_pointer(),
        "the frozen table both states share is copied once"
    );
    assert_ne!(
        part(&a, "moving").to_pointer(),
        part(&b, "moving").to_pointer()
    );
    assert_eq!(
        part(&b, "moving").get::<i64>("n").unwrap(),
        2,
        "what changed is new"
    );
    assert_eq!(part(&part(&b, "still"), "deep").get::<i64>("y").unwrap(), 2);
    assert!(
        b.is_readonly() && part(&b, "still").is_readonly(),
        "copies are frozen"
    );
    // A table that is not frozen is copied afresh each time: it may change.
    let open: Table = from.load("return { n = 1 }").eval().unwrap();
    let c = copier
        .copy(&from, &Value::Table(open.clone()), &into)
        .unwrap();
    open.set("n", 5).unwrap();
    let d = copier.copy(&from, &Value::Table(open), &into).unwrap();
    let n = |v: &Value| match v {
        Value::Table(t) => t.get::<i64>("n").unwrap(),
        _ => 0,
    };
    assert_eq!((n(&c), n(&d)), (1, 5));
}

// rule: X1
#[test]
fn a_copy_that_would_pass_the_memory_cap_is_refused_and_the_cap_stays() {
    let from = Lua::new();
    let into = Lua::new();
    let big: Table = from
        .load("local t = {} for i = 1, 200 do t[`key{i}`] = string.rep('\\xff', 10000) .. i end return table.freeze(t)")
        .eval()
        .unwrap();
    let cap = into.used_memory() + 1024 * 1024;
    into.set_memory_limit(cap).unwrap();
    let mut copier = Copier::default();
    let refused = copier
        .copy(&from, &Value::Table(big), &into)
        .expect_err("a copy past the cap");
    assert!(refused.line().contains("larger than"), "{}", refused.line());
    assert_eq!(into.set_memory_limit(cap).unwrap(), cap, "the cap is back");
    // What fits still copies, keys of every kind kept apart.
    let small: Table = from
        .load("return table.freeze({ [1] = 'a', ['1'] = 'b', ['\\xff'] = 'c', [2.5] = 'd' })")
        .eval()
        .unwrap();
    let Value::Table(copy) = copier.copy(&from, &Value::Table(small), &into).unwrap() else {
        panic!("a table");
    };
    assert_eq!(copy.get::<String>(1).unwrap(), "a");
    assert_eq!(copy.get::<String>("1").unwrap(), "b");
    assert_eq!(
        copy.get::<String>(into.create_string(b"\xff").unwrap())
            .unwrap(),
        "c"
    );
    assert_eq!(copy.get::<String>(2.5).unwrap(), "d");
}

// rule: X1
#[test]
fn a_copy_is_the_state_whatever_the_walk_meets() {
    // What the C-API walk takes (strings of any bytes, numbers, booleans,
    // vectors, a table shared at two places, a list and a map in one
    // table) and what it leaves to the safe copy (a function, a key that
    // is a table, a metatable, more tables than the room it made): the
    // copy is the state each time, or the same refusal the safe copy
    // gives, and a copy after a refusal copies again.
    let from = Lua::new();
    let into = Lua::new();
    let mut copier = Copier::default();
    let plain: Table = from
        .load(
            "local shared = table.freeze({ 1, 2 })
             return table.freeze({ s = 'a\\0b\\xff', n = -0.5, t = true, f = false,
               v = vector.create(1, 2, 3), a = shared, b = shared,
               mixed = table.freeze({ 10, 20, x = 'y' }) })",
        )
        .eval()
        .unwrap();
    let copied = copier
        .copy(&from, &Value::Table(plain.clone()), &into)
        .unwrap();
    assert_eq!(
        to_json(&copied).unwrap(),
        to_json(&Value::Table(plain)).unwrap()
    );
    let Value::Table(copy) = &copied else {
        panic!("a table");
    };
    assert_eq!(
        copy.get::<Table>("a").unwrap().to_pointer(),
        copy.get::<Table>("b").unwrap().to_pointer(),
        "a table at two places is one copy"
    );
    assert!(copy.get::<Table>("mixed").unwrap().is_readonly());
    for (bad, says) in [
        (
            "return table.freeze({ deep = table.freeze({ f = print }) })",
            "state.deep.f is a function",
        ),
        (
            "return table.freeze({ [{}] = 1 })",
            "has a key that is a table",
        ),
        (
            "return table.freeze({ m = setmetatable({}, {}) })",
            "state.m has a metatable",
        ),
    ] {
        let value: Value = from.load(bad).eval().unwrap();
        let refused = copier.copy(&from, &value, &into).expect_err(bad);
        let safe = crate::state::copy(&value, &into).expect_err(bad);
        assert!(refused.line().contains(says), "{}", refused.line());
        assert_eq!(refused.line(), safe.line(), "the safe copy's words");
    }
    // Ten thousand tables: more than the first walk makes room for.
    let many: Value = from
        .load("local t = {} for i = 1, 10000 do t[i] = table.freeze({ i }) end return table.freeze(t)")
        .eval()
        .unwrap();
    for _ in 0..3 {
        let copied = copier.copy(&from, &many, &into).unwrap();
        assert_eq!(to_json(&copied).unwrap(), to_json(&many).unwrap());
    }
}

// rule: X1
#[test]
fn a_copier_handed_another_game_s_states_starts_afresh() {
    // A search plays each run in a new VM, and one copier serves them all:
    // what it kept of the last VM's tables says nothing of the next's.
    let into = Lua::new();
    let mut copier = Copier::default();
    for n in 0..4 {
        let from = Lua::new();
        let state: Value = from
            .load(format!(
                "return table.freeze({{ n = {n}, part = table.freeze({{ n = {n} }}) }})"
            ))
            .eval()
            .unwrap();
        let copied = copier.copy(&from, &state, &into).unwrap();
        assert_eq!(to_json(&copied).unwrap(), to_json(&state).unwrap());
    }
}

// rule: X1, H9
#[test]
fn a_game_at_its_memory_cap_is_copied_all_the_same() {
    // The walk keeps the sources it copied in a table of the game's own VM;
    // a game with no room left for it is copied the safe way, allocating
    // in the properties' VM alone, and its cap is never passed.
    let from = Lua::new();
    let into = Lua::new();
    let state: Value = from
        .load("return table.freeze({ a = table.freeze({ 1, 2, 3 }), b = 'x' })")
        .eval()
        .unwrap();
    from.set_memory_limit(from.used_memory() + 64).unwrap();
    let mut copier = Copier::default();
    for _ in 0..2 {
        let copied = copier.copy(&from, &state, &into).unwrap();
        assert_eq!(to_json(&copied).unwrap(), to_json(&state).unwrap());
    }
}
