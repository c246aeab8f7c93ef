-- Neovim has mapped *.sls to the `salt` filetype since 0.8; this covers builds
-- or configurations where that mapping is missing, and leaves it alone otherwise.
if vim.filetype and vim.filetype.match and vim.filetype.match({ filename = 'top.sls' }) ~= 'salt' then
  vim.filetype.add({ extension = { sls = 'salt' } })
end
