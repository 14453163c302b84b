//! `#[blaise_plug::plug]`: put it on `impl Plug for YourType`. It exports the
//! type as the component's plug and declares exactly the hooks the `impl`
//! defines, so what the runner calls cannot drift from what the plug does.
//! Use it through the `blaise-plug` crate, which re-exports it.

use proc_macro::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemImpl, parse_macro_input, spanned::Spanned};

/// The hook methods of the `Plug` trait and the contract's name for each.
const HOOKS: [(&str, &str); 4] = [
    ("on_start", "OnStart"),
    ("on_resume", "OnResume"),
    ("on_pause", "OnPause"),
    ("on_teardown", "OnTeardown"),
];

#[proc_macro_attribute]
pub fn plug(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        return syn::Error::new(attr.span(), "`#[plug]` takes no arguments")
            .to_compile_error()
            .into();
    }
    let imp = parse_macro_input!(item as ItemImpl);
    let is_plug = imp
        .trait_
        .as_ref()
        .and_then(|(_, path, _)| path.segments.last())
        .is_some_and(|last| last.ident == "Plug");
    if !is_plug {
        return syn::Error::new(
            imp.self_ty.span(),
            "`#[plug]` goes on `impl Plug for YourType { … }`",
        )
        .to_compile_error()
        .into();
    }
    let defined: Vec<String> = imp
        .items
        .iter()
        .filter_map(|item| match item {
            ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    let hooks = HOOKS
        .iter()
        .filter(|(method, _)| defined.iter().any(|d| d == method))
        .map(|(_, variant)| syn::Ident::new(variant, proc_macro2::Span::call_site()));
    let filters = defined.iter().any(|d| d == "filter");
    let prepares = defined.iter().any(|d| d == "on_prepare");
    let ty = &imp.self_ty;
    quote! {
        #imp

        impl ::blaise_plug::__private::Implemented for #ty {
            const HOOKS: &'static [::blaise_plug::Hook] = &[#(::blaise_plug::Hook::#hooks),*];
            const FILTERS_TRANSCRIPT: bool = #filters;
            const PREPARES: bool = #prepares;
        }

        ::blaise_plug::__export_plug!(#ty);
    }
    .into()
}
