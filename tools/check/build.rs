//! Embeds the runtime library and the API definitions, so the checker
//! checks against the very sources the host it was built beside embeds.

use std::path::Path;

fn main() {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime");
    println!("cargo:rerun-if-changed={}", runtime.display());
    let mut modules: Vec<String> = std::fs::read_dir(&runtime)
        .expect("the runtime folder")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path
                .file_name()?
                .to_str()?
                .strip_suffix(".luau")?
                .to_string();
            (!name.contains('.')).then_some(name)
        })
        .collect();
    modules.sort();
    let mut out = String::from(
        "/// The runtime library, `@moonloop/NAME`, as `(name, source)`.\npub const RUNTIME: &[(&str, &str)] = &[\n",
    );
    for name in &modules {
        let file = runtime.join(format!("{name}.luau"));
        println!("cargo:rerun-if-changed={}", file.display());
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            file.display().to_string()
        ));
    }
    out.push_str("];\n");
    let defs = runtime.join("moonloop.d.luau");
    out.push_str(&format!(
        "/// The API's definitions.\npub const DEFINITIONS: &str = include_str!({:?});\n",
        defs.display().to_string()
    ));
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("runtime.rs");
    std::fs::write(dest, out).unwrap();
}
