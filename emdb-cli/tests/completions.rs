//! The committed completion scripts must match what the binary generates.

mod common;

use std::path::Path;

const SHELLS: [(&str, &str); 5] = [
    ("bash", "emdb.bash"),
    ("zsh", "_emdb"),
    ("fish", "emdb.fish"),
    ("powershell", "_emdb.ps1"),
    ("elvish", "emdb.elv"),
];

#[test]
fn committed_completions_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../completions");
    let home = tempfile::tempdir().unwrap();
    let mut stale = Vec::new();
    for (shell, file) in SHELLS {
        let generated = common::bare(home.path())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(
            generated.status.success(),
            "emdb completions {shell} failed"
        );
        let committed = std::fs::read(dir.join(file)).unwrap_or_default();
        if committed != generated.stdout {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "completions/{stale:?} are stale; regenerate them with:\n  \
         for s in bash:emdb.bash zsh:_emdb fish:emdb.fish powershell:_emdb.ps1 elvish:emdb.elv; do \
         cargo run -q -p emdb-cli -- completions ${{s%%:*}} > completions/${{s#*:}}; done"
    );
}

#[test]
fn completions_for_an_unknown_shell_are_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    common::bare(home.path())
        .args(["completions", "tcsh"])
        .assert()
        .code(2);
}
