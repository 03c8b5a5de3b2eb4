# props.pl prints props_gen.go's range tables: every code point with \p{Emoji}
# and with \p{Emoji_Presentation}, from the running Perl's Unicode data.
use strict;
sub ranges { my ($re) = @_; my @r; my $start=-1; my $prev=-2;
  for my $c (0..0x10FFFF) { next if $c>=0xD800 && $c<=0xDFFF; my $m = (chr($c) =~ $re) ? 1 : 0;
    if ($m) { if ($c == $prev+1 && $start>=0) { $prev=$c } else { push @r,[$start,$prev] if $start>=0; $start=$c; $prev=$c } } }
  push @r,[$start,$prev] if $start>=0; return @r }
for my $p (['emojiTable', qr/\p{Emoji}/], ['presentationTable', qr/\p{Emoji_Presentation}/]) {
  my @r = ranges($p->[1]);
  my (@r16, @r32);
  for (@r) { if ($_->[1] <= 0xFFFF) { push @r16, $_ } elsif ($_->[0] > 0xFFFF) { push @r32, $_ } else { push @r16, [$_->[0],0xFFFF]; push @r32,[0x10000,$_->[1]] } }
  print "var $p->[0] = &unicode.RangeTable{\n\tR16: []unicode.Range16{\n";
  printf "\t\t{Lo: 0x%04x, Hi: 0x%04x, Stride: 1},\n", @$_ for @r16;
  print "\t},\n\tR32: []unicode.Range32{\n";
  printf "\t\t{Lo: 0x%x, Hi: 0x%x, Stride: 1},\n", @$_ for @r32;
  my $lat = 0; $lat++ for grep { $_->[1] <= 0xFF } @r16;
  print "\t},\n\tLatinOffset: $lat,\n}\n\n";
}
