-- EQL in Neovim (0.7 and later; vim.lsp.start from 0.8 on): the two file types, and the language
-- server found where npm put it: the project's node_modules first, then npm's global prefix, then PATH.
--
--   Put this file on your runtimepath as lua/eql.lua (or :luafile it and use the table it returns), then
--   require('eql').setup({ symbols = { 'BTC', 'ETH', 'SOL' } })
--
-- Options: symbols (offered in completion), debounce_ms (delay before validating a change, default 150),
-- cmd (the server command, when it lives elsewhere).
local M = {}

local global_server -- npm's global install, looked up once (running npm takes a moment)

local function executable(path)
  return path ~= '' and vim.fn.executable(path) == 1
end

--- The server command: node_modules/.bin above the file, npm's global prefix, or the PATH.
function M.server_command(file)
  local dir = vim.fn.fnamemodify(file ~= '' and file or vim.fn.getcwd() .. '/x', ':p:h')
  local windows = vim.fn.has('win32') == 1
  local name = windows and 'eql-language-server.cmd' or 'eql-language-server'
  local found = vim.fn.findfile('node_modules/.bin/' .. name, dir .. ';')
  if found ~= '' then return { vim.fn.fnamemodify(found, ':p'), '--stdio' } end
  if global_server == nil then
    global_server = false
    local prefix = vim.fn.trim(vim.fn.system({ 'npm', 'prefix', '--global' }))
    if vim.v.shell_error == 0 and prefix ~= '' then
      local candidate = windows and (prefix .. '\\' .. name) or (prefix .. '/bin/' .. name)
      if executable(candidate) then global_server = candidate end
    end
  end
  if global_server then return { global_server, '--stdio' } end
  return { name, '--stdio' }
end

local function root_of(file)
  local dir = vim.fn.fnamemodify(file, ':p:h')
  local marker = vim.fn.findfile('package.json', dir .. ';')
  if marker == '' then marker = vim.fn.finddir('.git', dir .. ';') end
  return marker ~= '' and vim.fn.fnamemodify(marker, ':p:h') or dir
end

local clients = {} -- Neovim 0.7: one client per root, attached to each buffer

local function start(bufnr, config)
  if vim.lsp.start ~= nil then
    vim.api.nvim_buf_call(bufnr, function() vim.lsp.start(config) end)
    return
  end
  local id = clients[config.root_dir]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client(config)
    clients[config.root_dir] = id
  end
  if id ~= nil then vim.lsp.buf_attach_client(bufnr, id) end
end

function M.setup(options)
  options = options or {}
  local group = vim.api.nvim_create_augroup('eql', { clear = true })
  -- File types by autocommand: vim.filetype.add is opt-in on 0.7.
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, { group = group, pattern = '*.eql', command = 'setfiletype eql' })
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, { group = group, pattern = '*.eql.json', command = 'set filetype=eql-json' })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = { 'eql', 'eql-json' },
    callback = function(event)
      local file = vim.api.nvim_buf_get_name(event.buf)
      start(event.buf, {
        name = 'eql',
        cmd = options.cmd or M.server_command(file),
        root_dir = root_of(file),
        init_options = { symbols = options.symbols, validation = { debounceMs = options.debounce_ms or 150 } },
      })
    end,
  })
end

return M
