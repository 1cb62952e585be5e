//! Tests of `input/pads/padmap`.

use super::*;

// rule: H6
#[test]
fn every_embedded_line_reads() {
    let lines = DATABASE
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    let mut read = 0;
    for line in lines {
        match parse(line) {
            Ok(Some(_)) => read += 1,
            // Lines whose GUID SDL makes some other way (xinput).
            Err(why) if why.contains("GUID") => {}
            other => panic!("{line}: {other:?}"),
        }
    }
    assert!(read > 700, "{read} mappings");
}

// rule: H6
#[test]
fn a_pad_the_database_knows_is_found_by_its_ids() {
    let db = Database::read(None, &mut Vec::new());
    // An Xbox 360 pad over USB: bus 3, vendor 045e, product 028e.
    let guid = device_guid(3, 0x045e, 0x028e, 0x0110, b"Microsoft X-Box 360 pad");
    let found = db.find(&guid).expect("the database knows an Xbox 360 pad");
    assert!(found.name.contains("360"), "{}", found.name);
    // Another version of it still finds a mapping.
    let other = device_guid(3, 0x045e, 0x028e, 0x7777, b"");
    assert!(db.find(&other).is_some());
    assert!(db.find(&device_guid(3, 0x1234, 0x5678, 1, b"")).is_none());
}

// rule: H6
#[test]
fn a_mapping_turns_sdl_numbers_into_the_devices_codes() {
    // A generic pad that reports BTN_TRIGGER.. (0x120..) and ABS_X,
    // ABS_Y, ABS_Z, ABS_RZ and hat 0: SDL's b0 is 0x120, a2 is ABS_Z.
    let caps = Caps::default().with(
        &[
            0x100, 0x120, 0x121, 0x122, 0x123, 0x124, 0x125, 0x128, 0x129,
        ],
        &[0x00, 0x01, 0x02, 0x05, 0x10, 0x11],
    );
    let line = "03000000790000000600000010010000,Generic,a:b2,b:b1,x:b3,y:b0,start:b7,back:b8,\
                leftx:a0,lefty:a1~,rightx:a2,righty:a3,lefttrigger:-a3,dpup:h0.1,\
                +rightx:b4,paddle1:b5,platform:Linux,";
    let mapping = parse(line).unwrap().unwrap();
    let binds = mapping.binds(&caps);
    let button = |name: &str| Target::Button(PAD_BUTTONS.iter().position(|b| *b == name).unwrap());
    assert!(binds.keys.contains(&(0x122, button("south"))));
    assert!(binds.keys.contains(&(0x120, button("north"))));
    assert!(
        binds.keys.contains(&(0x129, button("start"))),
        "b7 is the eighth code"
    );
    assert!(binds.keys.contains(&(0x124, axis_target(2, Some('+')))));
    assert!(
        binds.keys.contains(&(0x100, button("back"))),
        "codes below BTN_JOYSTICK come last"
    );
    assert_eq!(binds.keys.len(), 7, "paddle1 has no name here: {binds:?}");
    assert!(
        binds
            .axes
            .contains(&(0x01, 1.0, -1.0, axis_target(1, None))),
        "lefty upside down"
    );
    assert!(
        binds
            .axes
            .contains(&(0x05, -1.0, 1.0, axis_target(3, None))),
        "a3 is ABS_RZ"
    );
    assert!(
        binds
            .axes
            .contains(&(0x05, 0.0, -1.0, axis_target(4, None)))
    );
    assert_eq!(binds.hats, [(0, 1, button("dpad_up"))]);
}

// rule: H6
#[test]
fn bad_lines_of_a_players_own_get_one_line_each() {
    let own = "03000000790000000600000010010000,Mine,a:b0,platform:Linux\n\
               nonsense,Mine,a:b0\n\
               03000000790000000600000010010000,Mine,a:q7,platform:Linux\n\
               03000000790000000600000010010000,Mine,a,platform:Linux\n\
               03000000790000000600000010010000,Mine,{many}platform:Linux\n\
               03000000790000000600000010010000,Mine,paddle1:b3,platform:Linux\n\
               # a comment\n\
               03000000790000000600000010010000,Theirs,a:b0,platform:Windows\n";
    let own = own.replace("{many}", &"a:b0,".repeat(65));
    let mut warnings = Vec::new();
    let db = Database::read(Some(&own), &mut warnings);
    assert_eq!(
        warnings,
        [
            "SDL_GAMECONTROLLERCONFIG line 2: `nonsense` is not a GUID of 32 hex digits",
            "SDL_GAMECONTROLLERCONFIG line 3: `q7` is not a button, axis or hat (in `a:q7`)",
            "SDL_GAMECONTROLLERCONFIG line 4: `a` is not target:source",
            "SDL_GAMECONTROLLERCONFIG line 5: more than 64 bindings",
            "SDL_GAMECONTROLLERCONFIG line 6: binds nothing the standard layout has",
        ]
    );
    let guid = device_guid(3, 0x0079, 0x0006, 0x0110, b"");
    assert_eq!(
        db.find(&guid).unwrap().name,
        "Mine",
        "a player's own line comes first"
    );
}

// rule: H6
#[test]
fn a_pads_motion_sensors_and_touchpad_are_not_pads() {
    let pad = Caps::default().with(&[0x130, 0x131, 0x13c], &[0x00, 0x01, 0x10, 0x11]);
    let mut sensors = Caps::default().with(&[], &[0x00, 0x01, 0x02, 0x03, 0x04, 0x05]);
    sensors.props[0] |= 1 << PROP_ACCELEROMETER;
    let touchpad = Caps::default().with(&[0x110, 0x145, 0x14a], &[0x00, 0x01, 0x35, 0x36]);
    let joystick = Caps::default().with(&[0x120, 0x121], &[0x00, 0x01]);
    assert!(pad.is_pad());
    assert!(joystick.is_pad(), "BTN_TRIGGER.. is a joystick's");
    assert!(!sensors.is_pad());
    assert!(!touchpad.is_pad());
    let mut moving_pad = pad.clone();
    moving_pad.props[0] |= 1 << PROP_ACCELEROMETER;
    assert!(!moving_pad.is_pad(), "an accelerometer is never a pad");
}

// rule: H6
#[test]
fn sources_read_as_sdl_writes_them() {
    assert_eq!(source("b12"), Some(Source::Button(12)));
    assert_eq!(source("h0.4"), Some(Source::Hat { index: 0, mask: 4 }));
    assert_eq!(source("h0.3"), None, "one direction a binding");
    assert_eq!(source("h9.1"), None);
    assert_eq!(
        source("-a1"),
        Some(Source::Axis {
            index: 1,
            from: 0.0,
            to: -1.0
        })
    );
    assert_eq!(
        source("a3~"),
        Some(Source::Axis {
            index: 3,
            from: 1.0,
            to: -1.0
        })
    );
    for bad in ["", "b", "bx", "+b1", "b1~", "z3", "a99999999"] {
        assert_eq!(source(bad), None, "{bad}");
    }
}
