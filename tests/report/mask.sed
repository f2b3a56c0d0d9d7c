# tests/report/mask.sed: hide what changes from run to run in a report
# (times, percentages, rates, the timer line), keep its layout and its
# counts.
/^  Timer: /d
s/-?[0-9]+\.[0-9]+e[-+][0-9]+/<t>/g
s/[0-9]+\.[0-9]+%/<p>%/g
s/[0-9]+(\.[0-9]+)?(ns|us|ms|s)\b/<d>/g
s/[ ]+[0-9]+\.[0-9]{3}( |$)/ <f>\1/g
s/[ ]+[0-9]+\.[0-9]{3}( |$)/ <f>\1/g
s/[ ]+/ /g
