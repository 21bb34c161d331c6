; Package-level definitions the Go plugin emits. Every pattern is anchored at
; source_file: types, funcs, consts and vars inside function bodies are skipped.

(source_file (function_declaration name: (identifier) @function.name) @function)

(source_file
  (method_declaration
    receiver: (parameter_list) @method.receiver
    name: (field_identifier) @method.name) @method)

(source_file
  (type_declaration
    (type_spec name: (type_identifier) @type.name type: (_) @type.type) @type))

(source_file
  (type_declaration (type_alias name: (type_identifier) @type.name) @type))

(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @interface.name
      type: (interface_type
        (method_elem name: (field_identifier) @interface_method.name) @interface_method))))

; A named struct's own fields (not those of a struct literal nested in one): the
; declaration, not its names, as for specs below (`X, Y int` is one declaration).
(source_file
  (type_declaration
    (type_spec
      name: (type_identifier) @struct.name
      type: (struct_type (field_declaration_list (field_declaration) @field)))))

; Specs, not names: a pattern on `name:` only yields the first of `a, b` in
; const specs; go.py reads every name field of the spec instead.
(source_file (const_declaration (const_spec) @constant))
(source_file (var_declaration (var_spec) @variable))
(source_file (var_declaration (var_spec_list (var_spec) @variable)))
