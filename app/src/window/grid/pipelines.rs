//! The grid texture's two render pipelines (egui's arithmetic for rows; a texel copy
//! for the window), their shaders, and egui's font atlas bound for the rows.

use eframe::egui_wgpu::wgpu;

pub(super) struct Pipelines {
    pub(super) format: wgpu::TextureFormat,
    /// The thread that compiled them and how long it took (the trace's `grid_pipelines`).
    pub(super) compiled_on: String,
    pub(super) compile_us: u128,
    pub(super) rows: wgpu::RenderPipeline,
    pub(super) locals_layout: wgpu::BindGroupLayout,
    pub(super) atlas_layout: wgpu::BindGroupLayout,
    pub(super) copy: wgpu::RenderPipeline,
    pub(super) copy_layout: wgpu::BindGroupLayout,
}

/// egui's font atlas, bound for the rows' pipeline.
pub(super) struct Atlas {
    pub(super) texture: wgpu::Texture,
    pub(super) bind_group: wgpu::BindGroup,
}

impl Atlas {
    pub(super) fn new(
        device: &wgpu::Device,
        p: &Pipelines,
        texture: wgpu::Texture,
        options: egui::TextureOptions,
    ) -> Atlas {
        let filter = |f: egui::TextureFilter| match f {
            egui::TextureFilter::Nearest => wgpu::FilterMode::Nearest,
            egui::TextureFilter::Linear => wgpu::FilterMode::Linear,
        };
        let address = match options.wrap_mode {
            egui::TextureWrapMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
            egui::TextureWrapMode::Repeat => wgpu::AddressMode::Repeat,
            egui::TextureWrapMode::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
        };
        // The sampler egui makes for the atlas (`egui_wgpu::renderer::create_sampler`).
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("tern grid atlas sampler"),
            mag_filter: filter(options.magnification),
            min_filter: filter(options.minification),
            address_mode_u: address,
            address_mode_v: address,
            ..Default::default()
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("tern grid atlas"),
            layout: &p.atlas_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        Atlas {
            texture,
            bind_group,
        }
    }
}

/// egui's shader (`egui_wgpu`'s `egui.wgsl`) for rows, less what tern turns off
/// (dithering, predictable filtering): the same arithmetic, so the same pixels.
const ROWS_WGSL: &str = r"
struct Out { @location(0) uv: vec2<f32>, @location(1) color: vec4<f32>, @builtin(position) pos: vec4<f32> };
@group(0) @binding(0) var<uniform> screen_size: vec4<f32>;
@group(1) @binding(0) var atlas: texture_2d<f32>;
@group(1) @binding(1) var atlas_sampler: sampler;
fn unpack_color(c: u32) -> vec4<f32> {
    return vec4<f32>(f32(c & 255u), f32((c >> 8u) & 255u), f32((c >> 16u) & 255u), f32((c >> 24u) & 255u)) / 255.0;
}
@vertex fn vs(@location(0) pos: vec2<f32>, @location(1) uv: vec2<f32>, @location(2) color: u32) -> Out {
    var out: Out;
    out.uv = uv;
    out.color = unpack_color(color);
    out.pos = vec4<f32>(2.0 * pos.x / screen_size.x - 1.0, 1.0 - 2.0 * pos.y / screen_size.y, 0.0, 1.0);
    return out;
}
fn linear_from_gamma_rgb(srgb: vec3<f32>) -> vec3<f32> {
    let cutoff = srgb < vec3<f32>(0.04045);
    let lower = srgb / vec3<f32>(12.92);
    let higher = pow((srgb + vec3<f32>(0.055)) / vec3<f32>(1.055), vec3<f32>(2.4));
    return select(higher, lower, cutoff);
}
@fragment fn fs_gamma(in: Out) -> @location(0) vec4<f32> {
    return in.color * textureSample(atlas, atlas_sampler, in.uv);
}
@fragment fn fs_linear(in: Out) -> @location(0) vec4<f32> {
    let c = in.color * textureSample(atlas, atlas_sampler, in.uv);
    return vec4<f32>(linear_from_gamma_rgb(c.rgb), c.a);
}
";

/// The copy to the window: one texel load per pixel, at the texel under it.
const COPY_WGSL: &str = r"
struct Out { @location(0) texel: vec2<f32>, @builtin(position) pos: vec4<f32> };
@group(0) @binding(0) var grid: texture_2d<f32>;
@vertex fn vs(@location(0) at: vec2<f32>, @location(1) texel: vec2<f32>) -> Out {
    var out: Out;
    out.texel = texel;
    out.pos = vec4<f32>(at, 0.0, 1.0);
    return out;
}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> {
    return textureLoad(grid, vec2<i32>(floor(in.texel)), 0);
}
";

impl Pipelines {
    pub(super) fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Pipelines {
        let started = std::time::Instant::now();
        let locals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tern grid locals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let texture_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                multisampled: false,
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
            },
            count: None,
        };
        let atlas_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tern grid atlas"),
            entries: &[
                texture_entry(0),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let copy_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tern grid copy"),
            entries: &[texture_entry(0)],
        });
        let module = |label, code: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(code.into()),
            })
        };
        let (rows_module, copy_module) = (
            module("tern grid rows", ROWS_WGSL),
            module("tern grid copy", COPY_WGSL),
        );
        let pipeline = |label,
                        layouts: &[Option<&wgpu::BindGroupLayout>],
                        module: &wgpu::ShaderModule,
                        buffer: wgpu::VertexBufferLayout<'_>,
                        fragment: &str,
                        blend: Option<wgpu::BlendState>| {
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: layouts,
                immediate_size: 0,
            });
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs"),
                    buffers: &[Some(buffer)],
                    compilation_options: Default::default(),
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some(fragment),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                    compilation_options: Default::default(),
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // egui's blend: premultiplied alpha.
        let egui_blend = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::OneMinusDstAlpha,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
        };
        let rows = pipeline(
            "tern grid rows",
            &[Some(&locals_layout), Some(&atlas_layout)],
            &rows_module,
            wgpu::VertexBufferLayout {
                array_stride: VERTEX_BYTES as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x2, 2 => Uint32],
            },
            if format.is_srgb() {
                "fs_linear"
            } else {
                "fs_gamma"
            },
            Some(egui_blend),
        );
        let copy = pipeline(
            "tern grid copy",
            &[Some(&copy_layout)],
            &copy_module,
            wgpu::VertexBufferLayout {
                array_stride: 16,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x2],
            },
            "fs",
            None,
        );
        Pipelines {
            format,
            compiled_on: std::thread::current().name().unwrap_or("?").to_owned(),
            compile_us: started.elapsed().as_micros(),
            rows,
            locals_layout,
            atlas_layout,
            copy,
            copy_layout,
        }
    }
}

/// egui's vertex on the GPU: position and uv (`f32` pairs), colour (4 bytes).
pub(super) const VERTEX_BYTES: usize = 20;

pub(super) fn vertex_bytes(out: &mut Vec<u8>, v: &egui::epaint::Vertex, shift: egui::Vec2) {
    let pos = v.pos - shift;
    for f in [pos.x, pos.y, v.uv.x, v.uv.y] {
        out.extend_from_slice(&f.to_ne_bytes());
    }
    out.extend_from_slice(&v.color.to_array());
}
