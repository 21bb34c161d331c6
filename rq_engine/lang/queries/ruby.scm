; Definitions and visibility switches the Ruby plugin reads. Scopes (class,
; module, `class << self`, blocks, method bodies) are recovered in Python from
; byte ranges, so patterns match at any depth.

(module) @module
(class) @class
(singleton_class) @singleton_class
(method) @method
(singleton_method) @singleton_method
[(do_block) (block)] @block

(assignment left: (constant)) @constant
(operator_assignment left: (constant)) @constant

(alias) @alias

; attr_* (ActiveSupport's mattr_*, cattr_*, class_attribute too), alias_method and the
; visibility calls, receiver-less only.
(call
  !receiver
  method: (identifier) @call.name
  (#any-of? @call.name
    "attr_reader" "attr_writer" "attr_accessor" "attr" "alias_method" "define_method"
    "mattr_reader" "mattr_writer" "mattr_accessor" "cattr_reader" "cattr_writer"
    "cattr_accessor" "thread_mattr_reader" "thread_mattr_writer" "thread_mattr_accessor"
    "thread_cattr_reader" "thread_cattr_writer" "thread_cattr_accessor" "class_attribute"
    "private" "protected" "public" "module_function"
    "private_class_method" "public_class_method"
    "private_constant" "public_constant")) @call

; A bare `private` / `protected` / `public` statement switches the section.
(body_statement
  (identifier) @section
  (#any-of? @section "private" "protected" "public" "module_function"))
