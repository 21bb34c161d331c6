; Definitions rq emits for Rust (compiled once per process by grammar.query).
; One capture name per role: @def items (the plugin dispatches on node.type), @scope for
; impl blocks (they name a parent, not a symbol), @macro for item-position macro
; invocations whose token trees the plugin re-parses (`cfg_rt! { pub struct Runtime … }`).

(mod_item) @def
(struct_item) @def
(enum_item) @def
(union_item) @def
(trait_item) @def
(type_item) @def
(function_item) @def
(function_signature_item) @def
(const_item) @def
(static_item) @def
(macro_definition) @def

; A type's members: named struct and union fields (a tuple struct's are numbers),
; enum variants. Their container's name is their parent (rust.py).
(struct_item body: (field_declaration_list (field_declaration) @def))
(union_item body: (field_declaration_list (field_declaration) @def))
(enum_item body: (enum_variant_list (enum_variant) @def))

(impl_item) @scope

(source_file (macro_invocation (token_tree) @macro))
(declaration_list (macro_invocation (token_tree) @macro))
