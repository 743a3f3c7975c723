use super::*;

#[test]
fn home_is_replaced_only_where_a_path_component_ends() {
    let r = Redactor::with_home(Some("/home/al/"));
    assert_eq!(r.text("/home/al/src/x"), "~/src/x");
    assert_eq!(r.text("cd /home/al"), "cd ~");
    assert_eq!(r.text("/home/alice/x"), "/home/alice/x");
}

#[test]
fn short_ids_keep_a_suffix() {
    assert_eq!(short_id("7"), "7");
    assert_eq!(short_id("0f3c9a7e-1b2d-4c5e"), "…d-4c5e");
}

#[test]
fn software_adapters_are_recognised() {
    assert!(AdapterInfo::is_software(
        "llvmpipe (LLVM 15.0.6, 256 bits)",
        "Cpu"
    ));
    assert!(AdapterInfo::is_software("lavapipe", "Other"));
    assert!(!AdapterInfo::is_software(
        "NVIDIA GeForce RTX 4090",
        "DiscreteGpu"
    ));
}
