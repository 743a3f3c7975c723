//! The GPU driver, probed early (issue 32, first paint). eframe makes the winit event
//! loop, the window, then the wgpu instance, adapter and device, one after the other on
//! the main thread; loading the Vulkan loader, its drivers and what they link (lavapipe
//! links LLVM) is a large part of that, and it needs no window. So `main` starts it on a
//! thread of its own at launch, builds the event loop meanwhile, and then asks eframe
//! only for the backends worth opening: when Vulkan has a usable adapter, wgpu's GL
//! backend (EGL and a second driver, a second software rasterizer on a machine without
//! a GPU) is not opened at all.

use eframe::wgpu;

/// A wgpu instance made on a thread of its own, with its adapters enumerated.
pub struct DriverProbe(Option<std::thread::JoinHandle<Probe>>);

/// What the early instance found.
pub struct Probe {
    /// Kept until eframe has made its own instance, so that the driver libraries stay
    /// loaded for it.
    pub instance: wgpu::Instance,
    /// The device types of the adapters found.
    pub adapters: Vec<wgpu::DeviceType>,
}

impl DriverProbe {
    /// Starts loading the drivers for `backends` and enumerating their adapters.
    pub fn start(backends: wgpu::Backends) -> DriverProbe {
        let thread = std::thread::Builder::new()
            .name("tern-gpu-probe".into())
            .spawn(move || {
                let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
                    backends,
                    ..wgpu::InstanceDescriptor::new_without_display_handle()
                });
                let adapters = pollster::block_on(instance.enumerate_adapters(backends))
                    .iter()
                    .map(|a| a.get_info().device_type)
                    .collect();
                Probe { instance, adapters }
            });
        DriverProbe(thread.ok())
    }

    /// Waits for the probe: `None` if its thread could not start or panicked.
    pub fn finish(mut self) -> Option<Probe> {
        self.0.take().and_then(|t| t.join().ok())
    }
}

/// The backends to ask eframe for. `WGPU_BACKEND` in the environment decides when set
/// (`from_env`). Otherwise Vulkan alone when it has a GPU adapter, or when its only
/// adapters are software and the machine has no GPU device node (`has_gpu_node`: then
/// GL could only be software as well); else Vulkan and GL, eframe's default, so that a
/// GPU with GL but no Vulkan driver is still used.
pub fn backends_for(
    from_env: Option<wgpu::Backends>,
    vulkan_adapters: &[wgpu::DeviceType],
    has_gpu_node: bool,
) -> wgpu::Backends {
    if let Some(b) = from_env {
        return b;
    }
    let gpu = vulkan_adapters.iter().any(|t| *t != wgpu::DeviceType::Cpu);
    if gpu || (!vulkan_adapters.is_empty() && !has_gpu_node) {
        wgpu::Backends::PRIMARY
    } else {
        wgpu::Backends::PRIMARY | wgpu::Backends::GL
    }
}

/// Whether the machine has a GPU's render node (`/dev/dri/renderD*`), which a hardware
/// GL driver would open.
pub fn has_gpu_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu::{Backends, DeviceType};

    #[test]
    fn gl_is_opened_only_where_it_could_find_a_gpu_vulkan_did_not() {
        let both = Backends::PRIMARY | Backends::GL;
        // A GPU's Vulkan driver: GL is not needed.
        assert_eq!(
            backends_for(None, &[DeviceType::DiscreteGpu], true),
            Backends::PRIMARY
        );
        assert_eq!(
            backends_for(None, &[DeviceType::Cpu, DeviceType::IntegratedGpu], true),
            Backends::PRIMARY
        );
        // Software Vulkan (lavapipe) and no GPU: GL would be software too.
        assert_eq!(
            backends_for(None, &[DeviceType::Cpu], false),
            Backends::PRIMARY
        );
        // Software Vulkan beside a GPU without a Vulkan driver: GL may reach the GPU.
        assert_eq!(backends_for(None, &[DeviceType::Cpu], true), both);
        // No Vulkan at all: eframe's default.
        assert_eq!(backends_for(None, &[], false), both);
        // WGPU_BACKEND decides when set.
        assert_eq!(
            backends_for(Some(Backends::GL), &[DeviceType::DiscreteGpu], false),
            Backends::GL
        );
    }
}
