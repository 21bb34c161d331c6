-- rq for Neovim: `:Rq [query]` runs the picker in a terminal window and jumps to the
-- pick; `:RqQuick {query}` loads `rq -q --vimgrep` into the quickfix list and jumps
-- to the first result. The work is in lua/rq/init.lua; this file only defines the
-- commands, so loading Neovim costs nothing until one is used.
if vim.g.loaded_rq then
  return
end
vim.g.loaded_rq = true

vim.api.nvim_create_user_command("Rq", function(cmd)
  require("rq").pick(cmd.args)
end, { nargs = "?", desc = "rq picker: jump to the pick (several: quickfix list)" })

vim.api.nvim_create_user_command("RqQuick", function(cmd)
  require("rq").quick(cmd.args)
end, { nargs = "+", desc = "rq -q --vimgrep into the quickfix list, at the first" })
