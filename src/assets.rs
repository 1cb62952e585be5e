//! Assets: the files a game names by path (images, models, textures),
//! found inside its folder and nowhere else (rule H9).

use std::path::{Component, Path, PathBuf};

/// Finds the `kind` file (`"image"`, `"model"`) called `name` in `root`.
///
/// # Errors
/// There is no game folder, the name is not a plain relative path, it
/// leads outside the folder (through a link too), or no such file exists.
pub fn find(root: Option<&Path>, name: &str, kind: &str) -> Result<PathBuf, String> {
    let root = root.ok_or_else(|| format!("{kind}s need a game folder"))?;
    let rel = Path::new(name);
    if name.is_empty() || rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(format!(
            "`{name}` is not a path inside the game folder (write it like \"sprites/ship.png\")"
        ));
    }
    let path = root.join(rel);
    if !path.is_file() {
        return Err(format!("no {kind} `{name}` in the game folder"));
    }
    let inside = match (path.canonicalize(), root.canonicalize()) {
        (Ok(real), Ok(root)) => real.starts_with(root),
        _ => false,
    };
    if !inside {
        return Err(format!("`{name}` leads outside the game folder"));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_inside_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.png"), "x").unwrap();
        let root = Some(dir.path());
        assert!(find(root, "a.png", "image").is_ok());
        assert_eq!(
            find(root, "b.png", "image").unwrap_err(),
            "no image `b.png` in the game folder"
        );
        for bad in ["../a.png", "/etc/passwd", "", "./a.png"] {
            assert!(
                find(root, bad, "image")
                    .unwrap_err()
                    .contains("is not a path inside"),
                "{bad}"
            );
        }
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("s.png"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("s.png"), dir.path().join("link.png"))
            .unwrap();
        assert_eq!(
            find(root, "link.png", "image").unwrap_err(),
            "`link.png` leads outside the game folder"
        );
        assert_eq!(
            find(None, "a.png", "model").unwrap_err(),
            "models need a game folder"
        );
    }
}
