; Definitions the Python plugin emits. Scope (module / class / function) is
; recovered in Python from byte ranges, so patterns match at any depth.

(class_definition) @class
(function_definition) @function

; UPPER_CASE targets (plain, chained, annotated). The regex only rejects names
; with ASCII lowercase here, in C; python.py checks str.isupper() (non-ASCII).
(assignment
  left: (identifier) @constant.name
  (#match? @constant.name "^[^a-z]+$")) @constant

; `x: Final = ...` / `x: Final[int]` / `X: TypeAlias = ...` whatever the case.
(assignment
  left: (identifier)
  type: (type) @annotation
  (#match? @annotation "^((typing|typing_extensions|t)\\.)?(Final|TypeAlias)\\b")) @annotated

; `H = lambda x: ...` at module/class level is a function/method definition.
(assignment left: (identifier) right: (lambda)) @lambda

; PEP 695 `type X = ...`
(type_alias_statement) @alias

; A comment that is the last thing in a block: the def around it ends earlier.
(block (comment) @trailing_comment .)
