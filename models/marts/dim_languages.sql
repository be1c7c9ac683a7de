with

{{ lakemix.stage_counts('language') }}

select * from stage_counts
