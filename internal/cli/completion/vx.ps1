# PowerShell completion for vx. Load it for this session with
#   vx completion powershell | Out-String | Invoke-Expression
# or add that line to $PROFILE.
# It asks vx itself (vx __complete ...), so the tasks and projects offered
# are those of the workspace the cursor's command would run in.
Register-ArgumentCompleter -Native -CommandName 'vx', 'vx.exe', 'vx.cmd' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $elements = @($commandAst.CommandElements | Where-Object { $_.Extent.StartOffset -lt $cursorPosition })
    $prog = $elements[0].Extent.Text
    # Words as the program would get them: a quoted string without its quotes.
    $rest = @($elements | Select-Object -Skip 1 | ForEach-Object {
        if ($_ -is [System.Management.Automation.Language.StringConstantExpressionAst]) { $_.Value } else { $_.Extent.Text }
    })
    if ($wordToComplete -ne '') {
        # The last element is the word under the cursor: keep what precedes the cursor.
        $rest = @($rest | Select-Object -SkipLast 1) + @($wordToComplete)
    } elseif ($PSVersionTable.PSVersion -lt [version]'7.3' -or $PSNativeCommandArgumentPassing -eq 'Legacy') {
        # Older PowerShell drops an empty argument to a program: vx reads '""' as empty.
        $rest += '""'
    } else {
        $rest += ''
    }
    $out = @(& $prog __complete @rest 2>$null)
    if ($out.Count -eq 0) { return }
    foreach ($line in ($out | Select-Object -Skip 1)) {
        $name, $desc = $line -split "`t", 2
        if (-not $desc) { $desc = $name }
        [System.Management.Automation.CompletionResult]::new($name, $name, 'ParameterValue', $desc)
    }
}
