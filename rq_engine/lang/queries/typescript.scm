; Definitions rq emits for TypeScript and TSX (compiled once per process by grammar.query;
; the TSX grammar shares these node types, so TsxPlugin loads this same file).
; @def: definitions (the plugin dispatches on node.type); @member: object-literal members. Declarators are matched
; only where they are module/namespace members, so locals cost no Python work.

(class_declaration) @def
(abstract_class_declaration) @def
(interface_declaration) @def
(type_alias_declaration) @def
(enum_declaration) @def
(internal_module) @def
(module) @def
(function_declaration) @def
(generator_function_declaration) @def
(function_signature) @def

(class_body (method_definition) @def)
(class_body (method_signature) @def)
(class_body (abstract_method_signature) @def)
(class_body (public_field_definition
  value: [(arrow_function) (function_expression) (generator_function)]) @def)
; a wrapped function is a method too: `static make = Effect.fnUntraced(function* () {…})`
(class_body (public_field_definition
  value: (call_expression
    arguments: (arguments [(arrow_function) (function_expression) (generator_function)]))) @def)
(interface_body (method_signature) @def)
; function-typed members are methods to a reader: `readonly run: <A>(a: A) => Effect<A>`
(interface_body (property_signature type: (type_annotation (function_type))) @def)
(class_body (public_field_definition type: (type_annotation (function_type))) @def)
; every other class property is a field (`issues: ZodIssue[] = []`, `@Input() name: string`);
; a property also matched above is a method (the plugin keeps the @def capture)
(class_body (public_field_definition) @field)
; and so is every other interface property (`ZodTypeDef.errorMap`, `Span.attributes`)
(interface_body (property_signature) @field)
; a constructor's parameter properties are its class's fields
; (`constructor(private readonly http: HttpClient)`); the plugin keeps a constructor's only
(class_body (method_definition
  parameters: (formal_parameters [(required_parameter (accessibility_modifier))
                                  (required_parameter (override_modifier))
                                  (required_parameter "readonly")
                                  (optional_parameter (accessibility_modifier))
                                  (optional_parameter (override_modifier))
                                  (optional_parameter "readonly")] @property)))
; a type literal's members are an interface's (`type Options = { readonly concurrency?: number }`)
(type_alias_declaration value: (object_type (method_signature) @def))
(type_alias_declaration value: (object_type (property_signature type: (type_annotation (function_type))) @def))
(type_alias_declaration value: (object_type (property_signature) @field))

; module-level declarators (direct, exported, ambient `declare`, `export declare`)
(program [(lexical_declaration (variable_declarator) @def)
          (variable_declaration (variable_declarator) @def)])
(program (export_statement declaration: [(lexical_declaration (variable_declarator) @def)
                                         (variable_declaration (variable_declarator) @def)]))
(program (ambient_declaration [(lexical_declaration (variable_declarator) @def)
                               (variable_declaration (variable_declarator) @def)]))
(program (export_statement declaration: (ambient_declaration [(lexical_declaration (variable_declarator) @def)
                                                              (variable_declaration (variable_declarator) @def)])))

; namespace members (`namespace N { const x = ... }`, `declare module "m" { ... }`)
(internal_module body: (statement_block [(lexical_declaration (variable_declarator) @def)
                                        (variable_declaration (variable_declarator) @def)]))
(module body: (statement_block [(lexical_declaration (variable_declarator) @def)
                               (variable_declaration (variable_declarator) @def)]))
(internal_module body: (statement_block (export_statement declaration: [(lexical_declaration (variable_declarator) @def)
                                                                       (variable_declaration (variable_declarator) @def)])))
(module body: (statement_block (export_statement declaration: [(lexical_declaration (variable_declarator) @def)
                                                              (variable_declaration (variable_declarator) @def)])))

; function- and class-valued declarators at any depth (`var _loop_1 = function …` in a
; function body is a nested function, like a nested function declaration). Module-level
; ones are also matched above; the plugin drops the duplicate capture.
(variable_declarator
  value: [(arrow_function) (function_expression) (generator_function) (class)]) @def

; members of an object literal bound to a name: `const api = { get() {}, put: () => … }`,
; `exports.provider = { now: function () {…} }`, `module.exports = { … }`
(variable_declarator
  name: (identifier)
  value: (object [(method_definition) @member
                  (pair key: (_) value: [(arrow_function) (function_expression) (generator_function)]) @member]))
; ...and an object of methods handed to the factory that makes the named value:
; `export const ZodObject = core.$constructor("ZodObject", init, { extend() {…} })`
(variable_declarator
  name: (identifier)
  value: (call_expression
    arguments: (arguments (object [(method_definition) @member
                                   (pair key: (_) value: [(arrow_function) (function_expression) (generator_function)]) @member]))))
(assignment_expression
  left: (member_expression)
  right: (object [(method_definition) @member
                  (pair key: (_) value: [(arrow_function) (function_expression) (generator_function)]) @member]))

; ES-module evidence and `export { a, b as c }` lists, for top-level visibility
(program (import_statement) @esm)
(program (export_statement) @esm)
(export_clause (export_specifier name: (_) @exported))
