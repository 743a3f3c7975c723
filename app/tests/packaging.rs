//! Packaging: the desktop file is valid and names the window's app id and icon, the
//! icons exist at the usual sizes, and each crate's package carries the assets its
//! code embeds (so `cargo package` and `cargo install` work outside this checkout).
//! Needs desktop-file-utils (`scripts/test.sh` installs it).

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
}

#[test]
fn the_desktop_file_is_valid_and_matches_the_window() {
    let file = root().join("assets/tern.desktop");
    let out = Command::new("desktop-file-validate")
        .arg(&file)
        .output()
        .expect("desktop-file-validate (apt-get install desktop-file-utils)");
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).expect("reads");
    // The window's app id (main.rs: `with_app_id("tern")`) and icon name.
    assert!(text.contains("\nStartupWMClass=tern\n"), "{text}");
    assert!(text.contains("\nIcon=tern\n"), "{text}");
    assert!(text.contains("\nExec=tern\n"), "{text}");
    assert!(text.contains("TerminalEmulator;"), "{text}");
}

#[test]
fn the_icon_comes_as_svg_and_square_pngs() {
    let icons = root().join("assets/icons");
    let svg = std::fs::read_to_string(icons.join("tern.svg")).expect("the svg");
    assert!(svg.contains("<svg"));
    for size in [16u32, 32, 48, 64, 128, 256] {
        let bytes = std::fs::read(icons.join(format!("tern-{size}.png"))).expect("png");
        // PNG: signature, then IHDR with width and height (big-endian) at 16..24.
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "tern-{size}.png");
        let w = u32::from_be_bytes(bytes[16..20].try_into().expect("4 bytes"));
        let h = u32::from_be_bytes(bytes[20..24].try_into().expect("4 bytes"));
        assert_eq!((w, h), (size, size), "tern-{size}.png");
    }
}

/// The files `cargo package --list` puts in a crate's package.
fn package_files(krate: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "package",
            "--list",
            "--allow-dirty",
            "--offline",
            "-p",
            krate,
        ])
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn each_package_carries_the_assets_its_code_embeds() {
    let core = package_files("tern-core");
    assert!(core.iter().any(|f| f == "assets/config.ron"), "{core:?}");
    let app = package_files("tern");
    for f in [
        "assets/fonts/DejaVuSansMono.ttf",
        "assets/fonts/DejaVuSansMono-Bold.ttf",
        "assets/fonts/DejaVuSansMono-Oblique.ttf",
        "assets/fonts/DejaVuSansMono-BoldOblique.ttf",
        "assets/fonts/LICENSE-DejaVu.txt",
        "assets/icons/tern-256.png",
        "assets/tern.desktop",
    ] {
        assert!(app.iter().any(|x| x == f), "{f} not in {app:?}");
    }
    // Nothing embedded reaches outside the crate, and the package carries each file.
    for (krate, files) in [("core", &core), ("app", &app)] {
        for (source, embedded) in embedded_paths(&root().join(krate).join("src")) {
            let inside = embedded
                .strip_prefix(root().join(krate))
                .unwrap_or_else(|_| {
                    panic!(
                        "{} embeds {} outside its crate",
                        source.display(),
                        embedded.display()
                    )
                });
            let inside = inside.to_string_lossy().into_owned();
            assert!(
                files.contains(&inside),
                "{inside} (from {}) not in the {krate} package",
                source.display()
            );
        }
    }
}

/// Every `include_str!("…")` / `include_bytes!("…")` under DIR: the file that names it
/// and the path it names, resolved against that file's folder without following links.
fn embedded_paths(dir: &Path) -> Vec<(std::path::PathBuf, std::path::PathBuf)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("reads the folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            found.extend(embedded_paths(&path));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("reads the source");
        for macro_name in ["include_str!(\"", "include_bytes!(\""] {
            for (at, _) in text.match_indices(macro_name) {
                let rest = &text[at + macro_name.len()..];
                let named = &rest[..rest.find('"').expect("a closing quote")];
                let mut resolved = path.parent().expect("a folder").to_path_buf();
                for part in Path::new(named).components() {
                    match part {
                        std::path::Component::ParentDir => {
                            resolved.pop();
                        }
                        other => resolved.push(other),
                    }
                }
                found.push((path.clone(), resolved));
            }
        }
    }
    found
}
