; Definitions rq emits for JavaScript / JSX (see typescript.scm for the conventions).
; @def: definitions (the plugin dispatches on node.type); @member: object-literal members.

(class_declaration) @def
(function_declaration) @def
(generator_function_declaration) @def

(class_body (method_definition) @def)
(class_body (field_definition
  value: [(arrow_function) (function_expression) (generator_function)]) @def)
; a wrapped function is a method too: `static make = Effect.fnUntraced(function* () {…})`
(class_body (field_definition
  value: (call_expression
    arguments: (arguments [(arrow_function) (function_expression) (generator_function)]))) @def)
; every other class field is a field (`count = 0`, `#secret`)
(class_body (field_definition) @field)

; module-level declarators (direct and exported)
(program [(lexical_declaration (variable_declarator) @def)
          (variable_declaration (variable_declarator) @def)])
(program (export_statement declaration: [(lexical_declaration (variable_declarator) @def)
                                         (variable_declaration (variable_declarator) @def)]))

; CommonJS / prototype assignments anywhere (bundles wrap them in IIFEs):
; `exports.f = …`, `module.exports.f = …`, `Foo.prototype.m = …`, `Foo.create = …`
(assignment_expression
  left: (member_expression)
  right: [(function_expression) (arrow_function) (generator_function) (class)]) @def

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

(program (import_statement) @esm)
(program (export_statement) @esm)
(export_clause (export_specifier name: (_) @exported))
