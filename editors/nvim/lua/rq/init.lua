-- rq for Neovim: run rq's picker or its one-shot `--vimgrep` form and jump to the answer.
--
-- No dependencies (no plenary): jobs, terminals and the quickfix list are Neovim's own,
-- and everything used is in Neovim 0.7. Both commands run rq in Neovim's current
-- directory (`:pwd`), so the relative paths rq prints resolve as they do for `:grep`.
--
--   :Rq [query]       the picker in a floating terminal (or a split); one pick: jump to
--                     it; several (marked with tab): the quickfix list, at the first
--   :RqQuick {query}  `rq -q --vimgrep {query}` into the quickfix list, at the first
--
-- The cursor goes along as `--anchor FILE:LINE:COL` (rq ranks definitions around it
-- first) when the buffer is a file on disk and `rq --help` lists `--anchor`; that
-- help text is read once per rq command and cached.

local M = {}

M.config = {
  cmd = nil, -- the rq command: a string or a list (`{"python", "-m", "rq_engine"}`); default g:rq_cmd, else "rq"
  layout = "float", -- "float" or "split" (a `botright` split) for the picker
  width = 0.9, -- the float's size, as a fraction of the editor's
  height = 0.8,
  split_height = 20, -- the split's height in lines
  anchor = true, -- pass the cursor as --anchor (when rq supports it)
  open_quickfix = true, -- open the quickfix window when several results were loaded
}

local EFM = "%f:%l:%c:%m" -- rq's --vimgrep: path:line:col:text, col a 1-based byte column
local help_cache = {}

function M.setup(opts)
  M.config = vim.tbl_extend("force", M.config, opts or {})
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.WARN, { title = "rq" })
end

--- The rq command as a list (no shell involved).
local function rq_cmd()
  local cmd = M.config.cmd or vim.g.rq_cmd or "rq"
  if type(cmd) == "string" then
    return { cmd }
  end
  return vim.deepcopy(cmd)
end

local function concat(a, b)
  local out = vim.deepcopy(a)
  for _, v in ipairs(b) do
    table.insert(out, v)
  end
  return out
end

local function strip_last_empty(lines)
  if #lines > 0 and lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end

--- Run argv to the end: exit code, stdout lines, stderr lines. nil when it cannot start.
local function run(argv)
  local out, err = {}, {}
  local ok, job = pcall(vim.fn.jobstart, argv, {
    cwd = vim.fn.getcwd(),
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_stderr = function(_, data)
      err = data
    end,
  })
  if not ok or job <= 0 then
    return nil
  end
  vim.fn.chanclose(job, "stdin") -- rq -q reads no input; an open pipe must not make it wait
  local code = vim.fn.jobwait({ job }, -1)[1] -- Ctrl-C interrupts it (-2)
  if code == -2 then
    vim.fn.jobstop(job)
  end
  return code, strip_last_empty(out), strip_last_empty(err)
end

--- Whether this rq knows `--anchor` (read from `rq --help` once per command).
local function supports_anchor(cmd)
  local key = table.concat(cmd, "\0")
  if help_cache[key] == nil then
    local code, out = run(concat(cmd, { "--help" }))
    help_cache[key] = code == 0 and table.concat(out, "\n"):find("--anchor", 1, true) ~= nil
  end
  return help_cache[key]
end

--- `{"--anchor", "FILE:LINE:COL"}` for the cursor, or `{}` when it is not in a file on disk.
local function anchor_args(cmd)
  if not M.config.anchor or vim.bo.buftype ~= "" then
    return {}
  end
  local file = vim.fn.expand("%:p")
  if file == "" or vim.fn.filereadable(file) ~= 1 or not supports_anchor(cmd) then
    return {}
  end
  -- {line, 0-based byte column}; line 0 before the window's first redraw (headless)
  local pos = vim.api.nvim_win_get_cursor(0)
  return { "--anchor", string.format("%s:%d:%d", file, math.max(pos[1], 1), pos[2] + 1) }
end

-- rq's exit codes for a miss (docs/cli.md): it prints nothing for 1 and 2
local MISSES = {
  [1] = "no match for %q",
  [2] = "no match for %q yet: the index is still warming, or this directory is not indexed",
  [3] = "nothing to match %q: rq reads no file in this repository",
}

--- Say why rq gave no answer: the miss by its exit code, then what rq printed on stderr.
local function failed(code, err, query)
  local msg = MISSES[code] and string.format(MISSES[code], query) or ("exited with " .. code)
  if #err > 0 then
    msg = msg .. ": " .. table.concat(err, " ")
  end
  notify("rq: " .. msg, MISSES[code] and vim.log.levels.WARN or vim.log.levels.ERROR)
end

local function missing(cmd)
  notify(
    string.format("cannot run %q: set g:rq_cmd or require('rq').setup({ cmd = ... })", cmd[1]),
    vim.log.levels.ERROR
  )
end

--- Jump to `--vimgrep` records: one goes to its place (the quickfix list is left alone),
--- several become the quickfix list, opened at the first.
local function jump(lines, title)
  local items = vim.fn.getqflist({ lines = lines, efm = EFM }).items
  local valid = vim.tbl_filter(function(it)
    return it.valid == 1 and it.bufnr > 0
  end, items)
  if #valid == 0 then
    return false
  end
  if #valid == 1 then
    local it = valid[1]
    vim.cmd("normal! m'") -- so that '' and <C-o> come back here
    vim.cmd("edit " .. vim.fn.fnameescape(vim.fn.bufname(it.bufnr)))
    vim.api.nvim_win_set_cursor(0, { it.lnum, math.max(it.col - 1, 0) })
    return true
  end
  vim.fn.setqflist({}, " ", { lines = lines, efm = EFM, title = title })
  if M.config.open_quickfix then
    vim.cmd("botright copen")
    vim.cmd("wincmd p")
  end
  vim.cmd("cfirst")
  return true
end

--- :RqQuick {query}: every result of `rq -q --vimgrep` in the quickfix list, at the first.
function M.quick(query)
  query = vim.trim(query or "")
  if query == "" then
    return notify("RqQuick needs a query")
  end
  local cmd = rq_cmd()
  local argv = concat(cmd, { "-q", "--vimgrep" })
  argv = concat(argv, anchor_args(cmd))
  argv = concat(argv, { "--", query }) -- a query may start with "-"
  local code, out, err = run(argv)
  if code == nil then
    return missing(cmd)
  end
  if code ~= 0 then
    return failed(code, err, query)
  end
  local title = "rq " .. query
  local items = vim.fn.getqflist({ lines = out, efm = EFM }).items
  if #items == 0 then
    return notify("rq: no results")
  end
  vim.fn.setqflist({}, " ", { lines = out, efm = EFM, title = title })
  vim.cmd("cfirst")
  if #items > 1 and M.config.open_quickfix then
    vim.cmd("botright copen")
    vim.cmd("wincmd p")
  end
end

local function open_window(buf)
  if M.config.layout == "split" then
    vim.cmd("botright " .. M.config.split_height .. "split")
    vim.api.nvim_win_set_buf(0, buf)
    return vim.api.nvim_get_current_win()
  end
  local cols, rows = vim.o.columns, vim.o.lines - vim.o.cmdheight
  local width = math.max(math.floor(cols * M.config.width), 20)
  local height = math.max(math.floor(rows * M.config.height), 8)
  return vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    width = math.min(width, cols),
    height = math.min(height, rows),
    col = math.floor((cols - width) / 2),
    row = math.floor((rows - height) / 2),
    style = "minimal",
    border = "rounded",
  })
end

--- :Rq [query]: the picker in a terminal window. It draws on that terminal (/dev/tty)
--- while its picks (`--print --vimgrep`) go to a temporary file: the terminal's own
--- output is the picker's drawing, not something to parse. stderr stays on the
--- terminal: rq runs the picker only when stdin and stderr are terminals (stderr
--- redirected too, it would answer one-shot), and an error stays readable there.
function M.pick(query)
  query = vim.trim(query or "")
  local cmd = rq_cmd()
  if vim.fn.executable(cmd[1]) ~= 1 then
    return missing(cmd)
  end
  local argv = concat(cmd, { "--print", "--vimgrep" })
  argv = concat(argv, anchor_args(cmd))
  if query ~= "" then
    argv = concat(argv, { "--", query })
  end
  local picks = vim.fn.tempname()
  -- sh only redirects: the arguments reach rq as they are, never re-split or expanded
  local sh = concat({ "sh", "-c", 'out=$1; shift; exec "$@" >"$out"', "sh", picks }, argv)

  local origin = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(false, true)
  local win = open_window(buf)
  vim.fn.termopen(sh, {
    cwd = vim.fn.getcwd(),
    on_exit = function(_, code)
      vim.schedule(function()
        local lines = vim.fn.filereadable(picks) == 1 and vim.fn.readfile(picks) or {}
        os.remove(picks)
        if code ~= 0 and code ~= 130 and MISSES[code] == nil then
          -- a usage or I/O error: leave the window open on rq's message
          return notify("rq: exited with " .. code .. " (its message is in the terminal window)")
        end
        if vim.api.nvim_win_is_valid(win) then
          vim.api.nvim_win_close(win, true)
        end
        if vim.api.nvim_buf_is_valid(buf) then
          vim.api.nvim_buf_delete(buf, { force = true })
        end
        if vim.api.nvim_win_is_valid(origin) then
          vim.api.nvim_set_current_win(origin)
        end
        if code == 130 then
          return -- esc: nothing picked
        end
        if code ~= 0 or #lines == 0 then
          return failed(code, {}, query)
        end
        jump(lines, "rq " .. query)
      end)
    end,
  })
  vim.cmd("startinsert")
end

return M
