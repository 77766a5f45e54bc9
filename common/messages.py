"""Every sentence the app shows people, in English and Chinese, keyed by a message id: one table for
the tabs, the rating page's server-side lines, the stakeholder page and the report's takeaway.

`PAGE` holds the fixed texts of the pages, which Gradio translates in the browser (ui/i18n.py marks
them): plain text, no braces (Gradio reads them as ICU messages). `LINES` holds what the server writes
with values in it, as Python format strings (`{name}`), in the reader's language. Code names a
message by its id (`english("rate_guidelines")`, `text("rater_saved", lang)`), never by copying
its English, so an edit of the English keeps its Chinese (tests/test_messages.py checks every id has
both, with the same fields). Imports nothing: every layer may read it.
"""

from __future__ import annotations

import re
import string
from functools import cache
from typing import Any

LANGUAGES: tuple[str, ...] = ("en", "zh")

PAGE: dict[str, tuple[str, str]] = {
    "how_to_vote_guidelines": ("How to vote (guidelines)", "如何投票（评分指南）"),
    "pair_guidelines": (
        "Responses are **cut off after a fixed number of tokens on purpose**: don't mark one down because it stops mid-sentence.\n\n**Read both responses to the prompt, then vote once:**\n\n- **A is better** (key 1) or **B is better** (key 2): the one you would rather get, as a whole.\n- **Tie** (key 3): about equally good. **Both bad** (key 4): neither is acceptable.\n\nOptionally tick why, or write a word, before you vote: the vote saves and the next item comes.\nWhich method wrote which stays hidden, and the sides differ between items and\nraters. You can go back and change a vote.",
        "回答**按固定的词元数截断是有意为之**：不要因为某个回答在句中停止而扣分。\n\n**请读完针对提示词的两个回答，然后投一票：**\n\n- **A 更好**（按键 1）或 **B 更好**（按键 2）：整体上你更想要的那个。\n- **平局**（按键 3）：差不多一样好。**都不好**（按键 4）：两个都不可接受。\n\n投票前可以勾选理由或写几个字：投票即保存，并进入下一项。\n哪个方法写了哪个回答是隐藏的，左右位置在不同条目和评分者之间也不同。你可以返回修改投票。",
    ),
    "a_is_better_1": ("A is better (1)", "A 更好 (1)"),
    "b_is_better_2": ("B is better (2)", "B 更好 (2)"),
    "tie_3": ("Tie (3)", "平局 (3)"),
    "both_bad_4": ("Both bad (4)", "都不好 (4)"),
    "why_optional": ("Why (optional)", "理由（可选）"),
    "anything_else_about_your_choice": (
        "Anything else about your choice (optional)",
        "关于你的选择，还有什么想说的（可选）",
    ),
    "more_accurate_or_on_topic": ("More accurate or on topic", "更准确或更切题"),
    "clearer_reads_better": ("Clearer, reads better", "更清楚，读起来更好"),
    "more_complete_or_useful": ("More complete or useful", "更完整或更有用"),
    "more_concise": ("More concise", "更简洁"),
    "safer_less_harmful": ("Safer, less harmful", "更安全，危害更小"),
    "app_header": (
        "# Decoding Arena\nOne prompt, several decoding methods, honest timing, blind ratings.",
        "# 解码竞技场\n同一个提示词，多种解码方法，如实计时，盲评打分。",
    ),
    "compare": ("Compare", "对比"),
    # the Organizer's creation form: where the prompts come from, the design, the exclusion rules
    "source_builtin": ("Built-in scenarios", "内置场景"),
    "source_pasted": ("Pasted list (one prompt per line)", "粘贴的列表（每行一个提示词）"),
    "source_uploaded": ("Uploaded CSV / JSONL", "上传的 CSV / JSONL"),
    "source_tasks": (
        "Article 003's tasks (math, code, summary; checked automatically)",
        "文章 003 的任务（数学、代码、摘要；自动检查）",
    ),
    "design_scores": ("1–5 scores", "1–5 评分"),
    "design_pairwise": ("Pairwise A vs B", "成对比较 A 对 B"),
    "exclude_attention": ("Drop raters who fail any attention item", "排除没有通过任一注意力检查题的评分者"),
    "exclude_straight_lining": (
        "Drop raters who give the same score to every response or on every question (straight-lining)",
        "排除给每条回答或每个问题都打相同分数的评分者（直线作答）",
    ),
    "exclude_speeder": (
        "Drop raters too fast to have read the responses (speeders)",
        "排除快得不可能读完回答的评分者（过快作答）",
    ),
    "exclude_against": ("Drop raters who score against the others' consensus", "排除打分与其他评分者共识相反的评分者"),
    "exclude_unrelated": (
        "Drop raters whose scores are unrelated to the responses (random clicking)",
        "排除打分与回答无关的评分者（随意点击）",
    ),
    "rate_blind": ("Rate (blind)", "盲评"),
    "results": ("Results", "结果"),
    "organizer": ("Organizer", "组织者"),
    "multi_arm_trace": ("Multi-arm trace", "多臂追踪"),
    "rate_intro": (
        "Rate each response from 1 (poor) to 5 (excellent). The responses come from different decoding methods; which is which stays hidden, and their order differs between items and raters. Your ratings are saved when you press **Submit**; you can go back and change them. To take part you need an invite code (or link) from the study's organizer.",
        "请为每条回答打 1（差）到 5（优秀）分。这些回答来自不同的解码方法；哪条来自哪种方法不会公开，回答的顺序在不同题目和不同评分者之间也不相同。按下 **提交** 后评分即保存；之后仍可返回修改。参与评分需要研究组织者提供的邀请码（或链接）。",
    ),
    "invite_code_or_link": ("Invite code or link", "邀请码或链接"),
    "opened_from_your_invite_link": ("opened from your invite link: leave empty", "已通过邀请链接打开：留空即可"),
    "start_continue": ("Start / continue", "开始 / 继续"),
    "prompt": ("Prompt", "提示词"),
    "how_to_rate_guidelines": ("How to rate (guidelines)", "如何评分（评分指南）"),
    "rate_guidelines": (
        "Responses are **cut off after a fixed number of tokens on purpose**: don't mark a response down because it stops mid-sentence.\n\n**Rate each response on its own, from 1 to 5, on three things:**\n\n- **Coherence**: is it logical, consistent and on topic? *1* contradicts itself or drifts off topic ·\n  *3* mostly holds together, with a slip or two · *5* clear and consistent from start to end.\n- **Informativeness / creativity**: does it say something useful or interesting? *1* empty or\n  generic · *3* some substance · *5* specific, useful or genuinely inventive.\n- **Naturalness**: does it read like fluent human writing? *1* broken or robotic · *3* understandable\n  but awkward · *5* reads as if a fluent person wrote it.\n\nThe order of the responses is random; which method wrote which stays hidden. You can go back and\nchange a rating.\n",
        "回答**有意在固定的 token 数后截断**：不要因为回答在句子中间停下而扣分。\n\n**请单独评价每条回答，按以下三个方面各打 1 到 5 分：**\n\n- **连贯性**：是否有逻辑、前后一致、切题？*1* 自相矛盾或跑题 · *3* 大体连贯，偶有疏漏 · *5* 从头到尾清晰一致。\n- **信息量 / 创造性**：是否说出了有用或有趣的内容？*1* 空洞或泛泛而谈 · *3* 有一些实质内容 · *5* 具体、有用或确有新意。\n- **自然度**：读起来是否像流畅的人写的？*1* 不通顺或机械 · *3* 能看懂但别扭 · *5* 像母语流利的人写的。\n\n回答的顺序是随机的；哪种方法写了哪条回答不会公开。你可以返回修改评分。\n",
    ),
    "rate_keys_rubric": (
        "Keys: a **digit** picks the button that shows it on the focused row and moves on (the next row, the next response, then Submit) · a two-digit point takes its two digits, **1** then **0** for 10 · **0** can't judge where the scale has no 0 · **Ctrl+Enter** submits.",
        "按键：**数字键** 选中当前行上显示该数字的按钮并跳到下一行（然后是下一条回答，最后是提交）· 两位数的分值连按两个数字，**1** 再按 **0** 为 10 · 量表没有 0 时 **0** 表示无法判断 · **Ctrl+Enter** 提交。",
    ),
    "can_t_judge": ("Can't judge", "无法判断"),
    "rate_keys": (
        "Keys: **1–5** score the focused row and move on to the next (then the next response, then Submit) · **0** can't judge · **Ctrl+Enter** submits. Mark **Can't judge** when a dimension cannot be judged for a response (it counts as answered, not as a score).",
        "按键：**1–5** 为当前行打分并跳到下一行（然后是下一条回答，最后是提交）· **0** 无法判断 · **Ctrl+Enter** 提交。某个方面无法评价时选择 **无法判断**（算作已作答，不计分）。",
    ),
    "skip_this_item_or_flag": ("Skip this item, or flag a problem", "跳过此题，或报告问题"),
    "reason_to_skip_this_item": ("Reason to skip this item", "跳过此题的原因"),
    "i_can_t_read_the": ("I can't read the language", "我看不懂这种语言"),
    "the_prompt_is_unclear": ("The prompt is unclear", "提示词不清楚"),
    "offensive_or_unsafe_content": ("Offensive or unsafe content", "冒犯性或不安全的内容"),
    "other_say_why": ("Other (say why)", "其他（请说明原因）"),
    "skip_say_why_needed_for": ("Skip: say why (needed for Other)", "跳过：说明原因（选“其他”时必填）"),
    "skip_this_item": ("Skip this item", "跳过此题"),
    "flag": ("Flag", "报告"),
    "the_whole_item": ("The whole item", "整道题"),
    "flag_reason": ("Flag reason", "报告原因"),
    "broken_or_empty_output": ("Broken or empty output", "输出损坏或为空"),
    "problem_with_the_prompt": ("Problem with the prompt", "提示词有问题"),
    "contains_personal_data": ("Contains personal data", "包含个人数据"),
    "flag_note_optional_needed_for": ("Flag note (optional; needed for Other)", "报告说明（可选；选“其他”时必填）"),
    "rate_skip_note": (
        "A skipped item counts as done and gets no scores from you; you can still go back and rate it. A flag goes to the organizer; your scores on screen stay, and you can go on rating.",
        "跳过的题目算作已完成，不计入你的评分；你仍可返回为它打分。报告会发送给组织者；屏幕上的评分会保留，你可以继续评分。",
    ),
    "rate_guess_prompt": (
        "**Your scores are saved.** One more question about this item; it does not change your scores, and if you have no idea, choose **Don't know**.",
        "**你的评分已保存。** 关于此题还有一个问题；它不会改变你的评分，如果完全不知道，请选 **不知道**。",
    ),
    "pair_guess_prompt": (
        "**Your vote is saved.** One more question about this pair; it does not change your vote, and if you have no idea, choose **Don't know**.",
        "**你的投票已保存。** 关于这组回答还有一个问题；它不会改变你的投票，如果完全不知道，请选 **不知道**。",
    ),
    "don_t_know": ("Don't know", "不知道"),
    "send_answer_and_go_on": ("Send answer and go on", "提交答案并继续"),
    "previous": ("← Previous", "← 上一题"),
    "submit_ratings": ("Submit ratings", "提交评分"),
    "next": ("Next →", "下一题 →"),
    "rate_page_signout": (
        "Opened by your invite link: the code is kept by this browser until it closes.",
        "已通过你的邀请链接打开：此浏览器会保留邀请码直到关闭。",
    ),
    "leave_this_study_on_this": ("Leave this study on this browser", "在此浏览器上退出本研究"),
    "ask_a_question_or_paste": ("Ask a question, or paste a text to continue", "提一个问题，或粘贴一段要续写的文字"),
    "raw_continuation_no_chat_template": ("Raw continuation (no chat template)", "直接续写（不用对话模板）"),
    "record_why_each_token_was": ("Record why each token was chosen", "记录每个 token 被选中的原因"),
    "compare_record_info": (
        "For the token view below; the recording's cost is inside that run's timing",
        "用于下方的 token 视图；记录的开销计入该次运行的计时",
    ),
    "the_article_s_scenarios_zh": ("The article's scenarios (zh and en)", "文章中的场景（中文和英文）"),
    "compare_tasks_label": (
        "Article 003's tasks: each output gets an automatic check (docs/tasks.md)",
        "文章 003 的任务：每个输出都会自动检查（docs/tasks.md）",
    ),
    "methods": ("Methods", "方法"),
    "the_article_s_methods": ("The article's methods", "文章中的方法"),
    "more_methods": ("More methods", "更多方法"),
    "compare_more_models": (
        "More models: every method on each, in a grid",
        "更多模型：每种方法在每个模型上运行，结果排成网格",
    ),
    "compare_more_methods_info": (
        "Every other registered decoder; each has its own settings under Settings below",
        "其他所有已注册的解码方法；各自的参数在下方“设置”中",
    ),
    "article_presets": ("Article presets", "文章预设"),
    "creative": ("Creative", "创意"),
    "balanced": ("Balanced", "平衡"),
    "precise": ("Precise", "精确"),
    "run": ("Run", "运行"),
    "stop": ("Stop", "停止"),
    "send_these_to_the_rate_tab": ("Send these to the Rate tab", "把这些输出送去盲评页"),
    "settings": ("Settings", "设置"),
    "seed_torch_manualseed_before_each": (
        "Seed (torch.manual_seed before each method; empty = random)",
        "随机种子（每种方法前调用 torch.manual_seed；留空 = 随机）",
    ),
    "timing": ("Timing", "计时"),
    "latency_and_throughput": ("Latency and throughput", "延迟与吞吐量"),
    "running": ("Running…", "运行中…"),
    "starting": ("Starting…", "正在开始…"),
    "stopped_before_it_started": ("**Stopped** before it started.", "开始前已 **停止**。"),
    "compare_reserved_picked": (
        "⚠ That example is in a study being rated, so Compare will not run it until the study is published.",
        "⚠ 该示例属于正在评分的研究，研究发布前“对比”不会运行它。",
    ),
    "model_english_only": (
        "is trained on English only, so a Chinese prompt gets an English or off-topic answer. For Chinese, start the app with the multilingual Gemma 3 270M: `python app.py --model gemma-3-270m` (docs/models.md).",
        "只用英文训练，中文提示词会得到英文或离题的回答。要用中文，请用多语言的 Gemma 3 270M 启动应用：`python app.py --model gemma-3-270m`（docs/models.md）。",
    ),
    "study": ("Study", "研究"),
    "refresh_studies": ("Refresh studies", "刷新研究列表"),
    "scenarios_empty_all": ("Scenarios (empty = all)", "场景（留空 = 全部）"),
    "raters_empty_all": ("Raters (empty = all)", "评分者（留空 = 全部）"),
    "perplexity_under_the_loaded_model": ("Perplexity under the loaded model", "用已加载的模型计算困惑度"),
    "show_results": ("Show results", "显示结果"),
    "choose_a_study_and_press": ("Choose a study and press **Show results**.", "选择一个研究，然后按 **显示结果**。"),
    "per_method": ("Per method", "每种方法"),
    "results_reading_the_table": (
        "**Reading the table.** ↑ higher is better, ↓ lower is better. Human scores: mean over prompts on each question's scale (1–5 unless its column names another), [95% CI]. **PPL** (perplexity): how surprised the loaded model is by the text; lower = more predictable, fluent text (too low can mean bland or repetitive). **MAUVE**: how close the method's texts are, as a distribution, to held-out human text of the same language under the same model's features (1 = indistinguishable), [95% bootstrap interval]; coarse with few outputs. **distinct-2**: share of word pairs that are unique; higher = more varied. **repetition %**: outputs that repeat a phrase 3+ times in a row. **Self-BLEU4**: how much a method's outputs resemble each other; lower = more diverse. **Zipf**: slope of the word-frequency curve; natural text is near 1, no better/worse direction. **latency ms**: mean wall time per output in milliseconds. **tokens/s**: new tokens per second of generation.",
        "**读表方法。** ↑ 越高越好，↓ 越低越好。人工评分：各提示词上的平均分，按各问题自己的量表（列名未注明时为 1–5 分制），[95% CI]。**PPL**（困惑度）：已加载的模型对这段文字有多意外；越低表示文字越可预测、越流畅（太低可能意味着平淡或重复）。**MAUVE**：在同一模型的特征下，该方法的文字作为一个分布与同语言的留出人类文本有多接近（1 = 无法区分），[95% 自助法区间]；输出少时较粗略。**distinct-2**：不重复的词对所占的比例，越高越多样。**重复率 %**：连续 3 次以上重复同一短语的输出所占的比例。**Self-BLEU4**：同一方法的各条输出彼此有多相似，越低越多样。**Zipf**：词频曲线的斜率，自然文本接近 1，没有好坏之分。**延迟 ms**：每条输出的平均耗时（毫秒）。**token/秒**：生成时每秒产生的新 token 数。",
    ),
    "human_scores": ("Human scores", "人工评分"),
    "quality_against_latency": ("Quality against latency", "质量与延迟"),
    "csv_numbers_per_method": ("CSV (numbers per method)", "CSV（每种方法的数据）"),
    "what_the_ratings_say_items": (
        "What the ratings say (items and raters as samples)",
        "评分说明了什么（题目和评分者都视为样本）",
    ),
    "statistics": ("Statistics", "统计方法"),
    "leaderboard_across_studies_same_models": ("Leaderboard across studies (same models)", "跨研究排行榜（相同模型）"),
    "model_set": ("Model set", "模型组合"),
    "studies_empty_all_of_this": ("Studies (empty = all of this model set)", "研究（留空 = 该模型组合的全部研究）"),
    "show_the_leaderboard": ("Show the leaderboard", "显示排行榜"),
    "results_length_adjusted": (
        "Length-adjusted contrast (exploratory): the pairs above at equal length (item + method + log2 length, items as clusters)",
        "长度调整后的对比（探索性）：上面各对方法在长度相同时的差异（题目 + 方法 + log2 长度，以题目为聚类）",
    ),
    "systems_across_studies": ("Systems across studies", "各研究中的系统"),
    "what_the_board_rests_on": ("What the board rests on (one row per study)", "排行榜依据的数据（每个研究一行）"),
    "results_board_help": (
        "One leaderboard over the published studies of the same models. Pairwise studies give their votes; a 1–5 study gives one comparison per prompt, rater and pair of methods (the higher mean score wins, equal scores tie). Bradley–Terry on the Elo scale (mean 1000), 95% intervals resampling prompts within their study, raters across studies and (prompt, rater) cells; a rank only where intervals separate; a system with under 30 comparisons or 10 prompts is provisional. A method run with other settings in another study is another system. A study still being rated is never on the board.",
        "对相同模型的已发布研究给出一个排行榜。成对比较研究提供其投票；1–5 分研究对每个提示词、评分者和每对方法给出一次比较（平均分高者胜，分数相同为平局）。采用 Elo 刻度上的 Bradley–Terry 模型（均值 1000），95% 置信区间在各自研究内重抽提示词、跨研究重抽评分者以及（提示词，评分者）单元；只有区间分开时才给出名次；比较少于 30 次或提示词少于 10 个的系统为暂定。在另一个研究中用不同设置运行的方法算作另一个系统。仍在评分中的研究绝不会出现在排行榜上。",
    ),
    "results_stats_help": (
        "Fixed in advance (docs/statistics.md). **Items and raters are both samples**: the claim is about prompts and raters in general. A cell is one rater's score of a method on an item (the mean over its samples). Per method: the mean over items, 95% CI from item, rater and residual variance components with Satterthwaite degrees of freedom (3 raters give wide intervals: that is what 3 raters can tell). Pairwise (the primary analysis): the mean over items of the (item, rater) differences a − b, its 95% CI and t test, with the raters' own taste for a method as a variance component pooled over pairs and dimensions. **One family for the headline**: every pair × dimension is adjusted together (step-down max-T, never above Holm); the takeaway names only these. With 1–2 raters every result holds for these raters only. Exploratory, not in the headline: Friedman on items (raters fixed), the mixed model score ~ method + (1|item) + (1|rater) + (1|output) + (1|rater:method) + (1|item:rater) by REML with Satterthwaite df. Agreement: Krippendorff's alpha (ordinal) over outputs. Position: score shown first minus shown last, each output's own mean removed, t CI over items. Perplexity vs scores: Spearman within each method and with the method partialled out, never pooled. Calibration: benchmarks/bench_calibration.py.",
        "事先确定（docs/statistics.md）。**题目和评分者都是样本**：结论针对的是一般的提示词和评分者。一个单元格是一位评分者对某方法在某题上的评分（多个样本时取平均）。每种方法：各题的平均分，95% CI 来自题目、评分者和残差的方差分量，自由度用 Satterthwaite 近似（3 位评分者的区间很宽：这正是 3 位评分者能说明的程度）。两两比较（主要分析）：各题上（题目，评分者）差值 a − b 的平均值、其 95% CI 和 t 检验，评分者对某方法的个人偏好作为方差分量，在各方法对和各维度间合并估计。**标题结论只用一个检验族**：所有方法对 × 维度一起校正（逐步 max-T，从不高于 Holm）；结论只提这些结果。只有 1–2 位评分者时，每个结果只对这些评分者成立。探索性分析，不进标题结论：按题目的 Friedman 检验（评分者视为固定），混合模型 评分 ~ 方法 + (1|题目) + (1|评分者) + (1|输出) + (1|评分者:方法) + (1|题目:评分者)，用 REML 估计、Satterthwaite 自由度。一致性：按输出计算的 Krippendorff α（有序）。位置效应：先展示的评分减去最后展示的评分，去掉每条输出自身的均值，按题目的 t CI。困惑度与评分：在每种方法内部、以及控制方法之后的 Spearman 相关，从不混合计算。校准：benchmarks/bench_calibration.py。",
    ),
    "results_pairwise_label": (
        "Pairwise (primary): mean (item, rater) difference, 95% CI, t test, p adjusted over the family",
        "两两比较（主要）：（题目，评分者）差值的平均、95% CI、t 检验、族内校正后的 p",
    ),
    "friedman_on_items_exploratory_raters": (
        "Friedman on items (exploratory: raters fixed)",
        "按题目的 Friedman 检验（探索性：评分者视为固定）",
    ),
    "results_mixed_label": (
        "Mixed model (exploratory): score ~ method + item + rater + output + rater:method + item:rater",
        "混合模型（探索性）：评分 ~ 方法 + 题目 + 评分者 + 输出 + 评分者:方法 + 题目:评分者",
    ),
    "mixed_model_variance_components": ("Mixed model: variance components", "混合模型：方差分量"),
    "position_effect_shown_first_shown": ("Position effect: shown first − shown last", "位置效应：先展示 − 最后展示"),
    "inter_rater_agreement_krippendorff_s": (
        "Inter-rater agreement (Krippendorff's alpha, ordinal)",
        "评分者间一致性（Krippendorff α，有序）",
    ),
    "spearman_perplexity_vs_human_scores": (
        "Spearman: perplexity vs human scores, within each method",
        "Spearman：困惑度与人工评分（每种方法内部）",
    ),
    "organizer_intro": (
        "Organizer tools. Everything here needs the organizer password (set with the environment variable `ARENA_ORGANIZER_PASSWORD` on the server).",
        "组织者工具。这里的一切操作都需要组织者密码（在服务器上用环境变量 `ARENA_ORGANIZER_PASSWORD` 设置）。",
    ),
    "organizer_password": ("Organizer password", "组织者密码"),
    "create_a_study": ("Create a study", "创建研究"),
    "raters_see_the_study_s": (
        "Raters see the study's name: keep method names out of it.",
        "评分者能看到研究名称：名称里不要出现方法名。",
    ),
    "study_name": ("Study name", "研究名称"),
    "prompts": ("Prompts", "提示词"),
    "built_in_scenarios_language": ("Built-in scenarios: language", "内置场景：语言"),
    "pasted_prompts_one_per_line": ("Pasted prompts (one per line)", "粘贴的提示词（每行一条）"),
    "organizer_prompt_file": (
        "Prompt file (.csv with a 'prompt' column, .jsonl, or .txt with one per line)",
        "提示词文件（带 “prompt” 列的 .csv、.jsonl，或每行一条的 .txt）",
    ),
    "samples_per_stochastic_method": ("Samples per stochastic method", "每种随机方法的样本数"),
    "organizer_base_seed": (
        "Base seed (empty: a secret random one; each output's seed derives from it)",
        "基础随机种子（留空：使用保密的随机种子；每条输出的种子由它派生）",
    ),
    "empty_secret_and_random": ("empty: secret and random", "留空：保密且随机"),
    "organizer_guidelines_box": (
        "Guidelines for raters (Markdown; empty = the default shown below)",
        "给评分者的指南（Markdown；留空 = 下面显示的默认指南）",
    ),
    "organizer_measure_blind": (
        "Measure the blind: after scoring (or voting on) each item, raters are asked which response came from the chosen method (in a pairwise study, on every pair); never told if they were right. The blinding index is shown once the study is closed.",
        "测量盲评效果：每题评分（或投票）后，询问评分者哪条回答来自所选的方法（成对研究中每组配对都询问）；从不告诉他们是否猜对。研究关闭后显示盲法指数。",
    ),
    "organizer_design": (
        "How raters judge: each response 1–5, or two responses side by side and one vote (A better, B better, tie, both bad; one sample per method)",
        "评分方式：每条回答打 1–5 分，或两条回答并排、投一票（A 更好、B 更好、平局、都不好；每种方法一个样本）",
    ),
    "organizer_rubric_box": ("Questions and rater quality control (optional)", "评分问题与评分者质量控制（可选）"),
    "organizer_rubric": (
        "Rubric (JSON; empty = coherence, informativeness, naturalness, 1-5)",
        "评分量表（JSON；留空 = 连贯性、信息量、自然度，1-5 分）",
    ),
    "organizer_rubric_default": (
        "Raters answer the default questions: coherence, informativeness, naturalness, each 1-5.",
        "评分者回答默认问题：连贯性、信息量、自然度，各 1-5 分。",
    ),
    "organizer_rubric_example": ("Insert an example rubric", "插入示例量表"),
    "organizer_attention": ("Attention items", "注意力检查题"),
    "organizer_attention_info": (
        "placed among the prompts; each response says which score to give (2 on every question)",
        "穿插在提示之间；每条回答都写明应给的分数（每个问题都选 2）",
    ),
    "organizer_exclusion": (
        "Exclusion rule (Results shows the analysis with and without it)",
        "排除规则（结果页并列显示排除前后的分析）",
    ),
    "the_default_guidelines": ("The default guidelines", "默认指南"),
    "create_study_and_generate_its": ("Create study and generate its outputs", "创建研究并生成输出"),
    "studies_and_progress": ("Studies and progress", "研究与进度"),
    "refresh": ("Refresh", "刷新"),
    "resume_generation": ("Resume generation", "继续生成"),
    "studies": ("Studies", "研究列表"),
    "progress_per_rater_chosen_study": ("Progress per rater (chosen study)", "每位评分者的进度（所选研究）"),
    "flags_from_raters_chosen_study": (
        "Flags from raters (chosen study): problems they reported",
        "评分者的报告（所选研究）：他们指出的问题",
    ),
    "open_for_rating": ("Open for rating", "开放评分"),
    "close_rating": ("Close rating", "结束评分"),
    "publish_results": ("Publish results", "发布结果"),
    "organizer_lifecycle": (
        "A study is a **draft** until its outputs are generated, then **open**: raters with an invite code rate it. **Close** ends rating and shows you the mapping and seeds; **Publish** makes its results public in the Results tab. Until then nothing per method leaves the server.",
        "研究在输出生成之前是 **草稿**，之后为 **开放**：持有邀请码的评分者可以评分。**结束** 会停止评分，并向你显示对应关系和随机种子；**发布** 会在“结果”页公开其结果。在此之前，任何按方法区分的信息都不会离开服务器。",
    ),
    "invite_raters_names_comma_or": (
        "Invite raters (names, comma or line separated; display only)",
        "邀请评分者（姓名，用逗号或换行分隔；仅用于显示）",
    ),
    "create_invite_codes": ("Create invite codes", "生成邀请码"),
    "revoke_a_rater_s_code": ("Revoke a rater's code", "撤销某位评分者的邀请码"),
    "revoke": ("Revoke", "撤销"),
    "organizer_accounts_title": ("Raters who sign in with Hugging Face", "用 Hugging Face 账号登录的评分者"),
    "organizer_accounts_help": (
        "Instead of (or beside) invite codes: list the Hugging Face usernames or organisations that may rate the chosen study, one a line or comma separated; `*` lets anyone signed in rate. Each account takes one seat on its first visit, with the same secret, balanced orders as an invited rater, and finds it again from any browser. It is listed with the enrolled raters as `hf:NAME`; write `NAME = PSEUDONYM` to have the seat, the exports and the statistics carry a name you choose instead. Revoke a seat as a code; an account taken off the list cannot rate any more (its ratings stay).",
        "可以代替（或同时使用）邀请码：列出可以为所选研究评分的 Hugging Face 用户名或组织，每行一个或用逗号分隔；`*` 表示任何已登录的人都可以评分。每个账号在第一次访问时获得一个席位，与受邀评分者一样有保密且平衡的顺序，并可在任何浏览器上继续。它在已登记的评分者中显示为 `hf:NAME`；写 `NAME = 化名` 可让席位、导出和统计改用你选的名字。撤销席位与撤销邀请码相同；从名单中移除的账号不能再评分（其评分保留）。",
    ),
    "organizer_accounts_label": (
        "Hugging Face accounts or organisations that may rate the chosen study (* = anyone signed in)",
        "可以为所选研究评分的 Hugging Face 账号或组织（* = 任何已登录的人）",
    ),
    "organizer_accounts_save": ("Save the list", "保存名单"),
    "organizer_accounts_on": (
        "Sign-in is on: this Space has `hf_oauth: true`.",
        "登录已开启：此 Space 设置了 `hf_oauth: true`。",
    ),
    "organizer_accounts_on_mock": (
        "Sign-in is MOCKED here (ARENA_HF_MOCK_USER, off a Space): anyone can sign in as anyone. For tests and trials only.",
        "此处的登录是模拟的（ARENA_HF_MOCK_USER，不在 Space 上）：任何人都可以冒充任何人。仅用于测试和试用。",
    ),
    "organizer_accounts_off": (
        "Sign-in is off on this server: raters can sign in only on a Hugging Face Space with `hf_oauth: true` in its README (docs/deploying.md).",
        "此服务器未开启登录：只有在 README 中设置了 `hf_oauth: true` 的 Hugging Face Space 上，评分者才能登录（docs/deploying.md）。",
    ),
    "organizer_new_codes": (
        "New invite codes: shown once, only their hashes are kept. Send each rater their link.",
        "新的邀请码：只显示一次，服务器只保存其哈希值。请把各自的链接发给每位评分者。",
    ),
    "download_the_new_invite_codes": ("Download the new invite codes (CSV)", "下载新的邀请码（CSV）"),
    "enrolled_raters_chosen_study": ("Enrolled raters (chosen study)", "已加入的评分者（所选研究）"),
    "organizer_position_balance": (
        "Position balance (pass/fail while open; counts per method and position after closing)",
        "位置平衡（开放期间显示通过/未通过；关闭后显示每种方法在各位置的次数）",
    ),
    "balanced_blocks_per_rater": ("Balanced blocks per rater", "每位评分者的平衡区组"),
    "reveal_the_blind_mapping": ("Reveal the blind mapping", "揭示盲评对应关系"),
    "export_ratings_csv": ("Export ratings (CSV)", "导出评分（CSV）"),
    "export_ratings_jsonl": ("Export ratings (JSONL)", "导出评分（JSONL）"),
    "export_votes_pairwise_closed": ("Export votes (pairwise, closed)", "导出投票（成对比较，已关闭）"),
    "export_preference_pairs_dpo_jsonl": (
        "Export preference pairs (DPO JSONL, closed)",
        "导出偏好对（DPO JSONL，已关闭）",
    ),
    "blind_mapping_which_method_stood": (
        "Blind mapping: which method stood behind each label",
        "盲评对应关系：每个标签背后是哪种方法",
    ),
    "organizer_export_note": (
        "The export covers every study and downloads in the browser (nothing is kept on the server). Until a study is closed its rows carry no method, seed, settings or output id: you are blind too. The command line exports everything: `python -m arena.export -o ratings.csv`.",
        "导出包含所有研究，并在浏览器中下载（服务器上不保留任何文件）。研究关闭之前，导出的行不含方法、种子、设置或输出编号：你也处于盲态。命令行可以导出全部内容：`python -m arena.export -o ratings.csv`。",
    ),
    "import_an_export_csv_or": ("Import an export (.csv or .jsonl)", "导入导出文件（.csv 或 .jsonl）"),
    "import": ("Import", "导入"),
    "danger_zone_delete_a_study": (
        "Danger zone: delete a study or one rater's ratings",
        "危险操作：删除研究或某位评分者的评分",
    ),
    "organizer_delete_note": (
        "Deleting cannot be undone. Before anything is deleted, the study's ratings are exported (the file below; **Import** puts them back) together with every item and output, so nothing goes without a copy. Raters of a deleted study are told it no longer exists.",
        "删除无法撤销。删除之前，研究的评分会连同所有题目和输出一起导出（即下面的文件；**导入** 可以恢复），所以不会有任何内容在没有副本的情况下丢失。已删除研究的评分者会被告知该研究已不存在。",
    ),
    "type_the_study_s_exact": ("Type the study's exact name to confirm", "输入研究的完整名称以确认"),
    "organizer_delete_rater_name": (
        "Rater (only to delete one rater's ratings)",
        "评分者（仅在删除某位评分者的评分时填写）",
    ),
    "delete_this_study": ("Delete this study", "删除此研究"),
    "delete_this_rater_s_ratings": ("Delete this rater's ratings in this study", "删除此评分者在此研究中的评分"),
    "export_written_before_deleting": ("Export written before deleting", "删除前写出的导出文件"),
    "organizer_blinding_title": (
        "Is the blind holding? Form check and blinding index (chosen study)",
        "盲评是否有效？形式检查与盲法指数（所选研究）",
    ),
    "organizer_form_check_help": (
        '**Form check** (before raters start, and after the study is closed): a simple classifier that sees only the form of the responses (length, whether it stopped by itself or ran into max tokens, how it ends, repetition, distinct words), trained on the other items, picks each method\'s response on every item. Far above chance means raters can tell that method by its form, whatever its quality.\n\n**Blinding index** (once the study is closed; raters are never told): from raters\' answers to "Which response do you think came from METHOD?". 0 = chance, 1 = always recognised, negative = systematically wrong; "don\'t know" counts as chance; 95% CI over items (docs/blinding.md).',
        "**形式检查**（评分者开始之前，以及研究关闭之后）：一个只看回答形式的简单分类器（长度、是自行结束还是达到最大 token 数、如何结尾、重复、不同词的数量），在其他题目上训练，在每道题上挑出每种方法的回答。远高于随机水平意味着评分者可以凭形式认出该方法，不论其质量如何。\n\n**盲法指数**（研究关闭后；从不告诉评分者）：来自评分者对“你认为哪条回答来自某方法？”的回答。0 = 随机水平，1 = 总能认出，负数 = 系统性地猜错；“不知道”按随机水平计；按题目的 95% CI（docs/blinding.md）。",
    ),
    "form_check": ("Form check", "形式检查"),
    "blinding_index": ("Blinding index", "盲法指数"),
    "blinding_index_per_method": ("Blinding index per method", "每种方法的盲法指数"),
    "raters_position_and_power": ("Raters, position and power", "评分者、位置与检验效能"),
    "organizer_diagnostics_help": (
        "**Rater diagnostics and position effect** of the chosen study (organizer only: shows rater names).",
        "所选研究的 **评分者诊断与位置效应**（仅组织者可见：会显示评分者姓名）。",
    ),
    "load_studies": ("Load studies", "加载研究"),
    "diagnose": ("Diagnose", "诊断"),
    "per_rater": ("Per rater", "每位评分者"),
    "organizer_position_effect": (
        "Position effect: shown first − shown last (95% CI over items)",
        "位置效应：先展示 − 最后展示（按题目的 95% CI）",
    ),
    "organizer_power_help": (
        "**Power planner**: how many items × raters give 80% power to detect a difference Δ between two methods with the primary analysis (items and raters as samples, every pair × dimension adjusted together), by simulation.",
        "**检验效能规划**：用主要分析（题目和评分者都视为样本，所有方法对 × 维度一起校正）检测两种方法之间差异 Δ，需要多少题目 × 评分者才能达到 80% 的检验效能，通过模拟估计。",
    ),
    "pilot_study_for_the_variances": (
        "Pilot study for the variances (empty: defaults)",
        "用于估计方差的预研究（留空：使用默认值）",
    ),
    "dimension": ("Dimension", "维度"),
    "score_points": ("Δ (score points)", "Δ（分）"),
    "methods_in_the_study": ("Methods in the study", "研究中的方法数"),
    "items_to_try": ("Items to try", "要尝试的题目数"),
    "raters_to_try": ("Raters to try", "要尝试的评分者数"),
    "simulated_studies_per_design": ("Simulated studies per design", "每种设计模拟的研究数"),
    "plan": ("Plan", "规划"),
    "power_by_items_rows_and": (
        "Power by items (rows) and raters (columns)",
        "检验效能：按题目数（行）和评分者数（列）",
    ),
    "trace_intro": (
        "Run the **multi-arm decoder** on one prompt and see each arm's path, its scores, every backtrack and prune. The verifier scores paths from the generating model's own signals (variance of token log-probabilities, entropy of its next-token distribution). It is **not** the article's trained 200M verifier, which is not published.",
        "在一个提示词上运行 **多臂解码器**，查看每个分支的路径、得分，以及每次回溯和剪枝。验证器根据生成模型自身的信号（token 对数概率的方差、下一个 token 分布的熵）为路径打分。它 **不是** 文章中训练的 200M 验证器，那个验证器没有公开。",
    ),
    "a_question_or_a_text": ("A question or a text to continue", "一个问题，或一段要续写的文字"),
    "seed": ("Seed", "随机种子"),
    "trace": ("Trace", "追踪"),
    "answer_the_arm_with_the": ("Answer (the arm with the highest mean score)", "答案（平均得分最高的分支）"),
    "arms_over_the_loop_steps": ("Arms over the loop steps", "各分支在循环步骤中的变化"),
    "arms": ("Arms", "分支"),
    "backtracks_and_prunes": ("Backtracks and prunes", "回溯与剪枝"),
    "models": ("Models", "模型"),
    "organizer_models_info": (
        "The app's model alone: a study of methods, as before. With other models ticked, raters compare every method on each model (blind, as methods are); each model loads when its outputs are generated, and every output records the precision it ran in (@int8: torchao int8 weights; @bf16 / @fp32: the dtype)",
        "只选本应用的模型：按方法比较的研究，与以前一样。勾选其他模型后，评分者比较每个模型上的每种方法（与方法一样盲评）；每个模型在生成其输出时才加载，每个输出都记录其运行精度（@int8：torchao int8 权重；@bf16 / @fp32：数据类型）",
    ),
    "organizer_scorer_label": (
        "Perplexity scorer (with several models: one model scores every system's outputs)",
        "困惑度评分模型（有多个模型时：由同一个模型为所有系统的输出打分）",
    ),
    "the_first_chosen_model": ("the first chosen model", "第一个选中的模型"),
    "dimension_label_coherence": ("Coherence: logical, consistent, on topic", "连贯性：有逻辑、前后一致、切题"),
    "dimension_label_informativeness": (
        "Informativeness / creativity: says something useful or interesting",
        "信息量 / 创造性：内容有用或有趣",
    ),
    "dimension_label_naturalness": ("Naturalness: reads like fluent human writing", "自然度：读起来像流畅的人写的"),
}

LINES: dict[str, tuple[str, str]] = {
    "present_charts": ("Charts", "图表"),
    "present_how_the_timing_was_measured": ("How the timing was measured", "计时是怎样测量的"),
    "present_was_the_blind_kept": ("Was the blind kept?", "盲评是否保持住了？"),
    "present_leaderboard": ("Leaderboard", "排行榜"),
    "present_no_numbers_yet": ("No numbers yet.", "还没有数据。"),
    "present_no_votes_yet": ("No votes yet.", "还没有投票。"),
    "present_none": ("none", "无"),
    "present_study": ("study", "研究"),
    "present_sub": (
        "Study #{id} · {items} prompt{items_s} · {ratings} rating{ratings_s} by {raters} rater{raters_s}, double-blind · methods: {methods}",
        "研究 #{id} · {items} 个提示词 · {raters} 位评分者的 {ratings} 条评分，双盲 · 方法：{methods}",
    ),
    # An imported study's line: the app ran neither its blind nor its design, so it claims neither.
    "present_sub_imported": (
        "Study #{id} · {items} prompt{items_s} · {ratings} rating{ratings_s} by {raters} rater{raters_s}, imported from {file}; collected outside this app · methods: {methods}",
        "研究 #{id} · {items} 个提示词 · {raters} 位评分者的 {ratings} 条评分，导入自 {file}；在本应用之外收集 · 方法：{methods}",
    ),
    "present_timing_imported": (
        "No timing: these ratings were imported from {file} and collected outside this app, which generated none of the responses.",
        "没有计时：这些评分导入自 {file}，在本应用之外收集，回答都不是本应用生成的。",
    ),
    "provenance_imported": (
        "Where the ratings came from: imported from {file}; collected outside this app (how, and whether blind, is not known here).",
        "评分的来源：导入自 {file}；在本应用之外收集（如何收集、是否盲评，本应用无从得知）。",
    ),
    "organizer_kind_imported": ("imported from {file}; collected outside this app", "导入自 {file}；在本应用之外收集"),
    "results_sizes": (
        "{items} prompt{items_s} · {ratings} rating{ratings_s} by {raters} rater{raters_s}",
        "{items} 个提示词 · {raters} 位评分者的 {ratings} 条评分",
    ),
    "results_sizes_votes": (
        "{items} prompt{items_s} · {votes} vote{votes_s} by {raters} rater{raters_s}",
        "{items} 个提示词 · {raters} 位评分者的 {votes} 次投票",
    ),
    "present_sub_pairwise": (
        "Study #{id} · {items} prompt{items_s} · {votes} A-vs-B vote{votes_s} by {raters} rater{raters_s}, double-blind · methods: {methods}",
        "研究 #{id} · {items} 个提示词 · {raters} 位评分者的 {votes} 次 A/B 投票，双盲 · 方法：{methods}",
    ),
    "present_help": (
        "Reading the table. ↑ higher is better, ↓ lower is better. Human scores: mean over prompts on each question's scale (1–5 unless its column names another), [95% CI]. distinct-2: share of word pairs that are unique; higher = more varied. repetition %: outputs that repeat a phrase 3+ times in a row. Self-BLEU4: how much a method's outputs resemble each other; lower = more diverse. Zipf: slope of the word-frequency curve; natural text is near 1, no better/worse direction. latency ms: mean wall time per output in milliseconds. tokens/s: new tokens per second of generation.",
        "读表方法：↑ 越高越好，↓ 越低越好。人工评分：各提示词上的平均分，按各问题自己的量表（列名未注明时为 1–5 分制），[95% CI]。distinct‑2：不重复的词对所占的比例，越高越多样。重复率 %：连续 3 次以上重复同一短语的输出所占的比例。Self‑BLEU4：同一方法的各条输出彼此有多相似，越低越多样。Zipf：词频曲线的斜率，自然文本接近 1，没有好坏之分。延迟 ms：每条输出的平均耗时（毫秒）。token/秒：生成时每秒产生的新 token 数。",
    ),
    "column_method": ("method", "方法"),
    "column_coherence": ("coherence ↑", "连贯性 ↑"),
    "column_informativeness": ("informativeness ↑", "信息量 ↑"),
    "column_naturalness": ("naturalness ↑", "自然度 ↑"),
    "column_repetition": ("repetition % ↓", "重复率 % ↓"),
    "column_latency_ms": ("latency ms ↓", "延迟 ms ↓"),
    "column_tokens_s": ("tokens/s ↑", "token/秒 ↑"),
    # /present: the timing columns say where the figures come from (the study's own generation run,
    # batched and under whatever load the server had), not the method's speed in general
    "column_latency_ms_study_run": (
        "latency ms ↓ (measured while generating this study: see “How the timing was measured”)",
        "延迟 ms ↓（生成本研究时测得：见“计时是怎样测量的”）",
    ),
    "column_tokens_s_study_run": (
        "tokens/s ↑ (measured while generating this study: see “How the timing was measured”)",
        "token/秒 ↑（生成本研究时测得：见“计时是怎样测量的”）",
    ),
    "column_rank": ("rank", "名次"),
    "column_rating_95_ci": ("rating [95% CI]", "评分 [95% CI]"),
    "column_at_equal_length_95_ci": ("at equal length [95% CI]", "等长时 [95% CI]"),
    "column_votes": ("votes", "投票数"),
    "column_items": ("items", "提示词数"),
    "column_wins_losses_ties": ("wins / losses / ties", "胜 / 负 / 平"),
    "column_provisional": ("provisional", "暂定"),
    "rater_progress": (
        "Item {index} of {total} · you have rated {rated} of {total}",
        "第 {index} 题，共 {total} 题 · 你已评 {rated} / {total} 题",
    ),
    "rater_progress_skipped": (" ({skipped} skipped)", "（另跳过 {skipped} 题）"),
    "rater_skipped_note": (
        " · you skipped this item ({reason}); rating it and submitting replaces the skip",
        " · 你跳过了此题（{reason}）；为它打分并提交会取代跳过",
    ),
    "rater_already_rated": (
        " · already rated: submitting again updates your ratings",
        " · 已评分：再次提交会更新你的评分",
    ),
    "rater_rating_as": ("Rating as **{rater}** in **{study}**.", "评分者 **{rater}** · 研究 **{study}**。"),
    # the /rate footer of a rater signed in with Hugging Face (ui/rate/footer.py)
    "rate_page_signed_in": (
        "Signed in with Hugging Face as **@{user}**: your place in a study follows this account to any browser where you sign in with it. To leave on this browser, sign out with the button at the top.",
        "已用 Hugging Face 账号 **@{user}** 登录：你在研究中的进度跟随这个账号，在任何用它登录的浏览器上都能继续。要在此浏览器上退出，请用页面顶部的按钮退出登录。",
    ),
    "rater_not_saved_yet": (
        "**Not saved yet**: {scored} of {needed} scored. Missing: {where}. Your scores are kept: fill in the marked rows and submit again.",
        "**尚未保存**：已打分 {scored} / {needed}。缺少：{where}。你的评分仍在：填好标出的行后再次提交。",
    ),
    "compare_estimate": (
        "**About {when}** for {what} × up to {tokens} new tokens (measured here: {rate} tokens/s){guessed}",
        "**约 {when}**：{what} × 最多 {tokens} 个新 token（本机实测：{rate} token/秒）{guessed}",
    ),
    "compare_estimate_methods": ("{n} method{s}", "{n} 种方法"),
    "compare_estimate_models": (" × {n} models", " × {n} 个模型"),
    "duration_seconds": ("{n} s", "{n} 秒"),
    "duration_minutes": ("{n} min", "{n} 分钟"),
    "duration_hours": ("{n} h", "{n} 小时"),
    "compare_estimate_guessed": (
        "; {methods} not timed yet, counted at the slowest rate",
        "；{methods} 尚未计时，按最慢的速度估算",
    ),
    "compare_estimate_unmeasured": (
        "{what} × up to {tokens} new tokens: not timed on this machine yet (the first run measures it; beam search is the slowest)",
        "{what} × 最多 {tokens} 个新 token：本机尚未计时（第一次运行会测量；束搜索最慢）",
    ),
    "rater_saved": ("Saved.", "已保存。"),
    "rater_saved_one_more_question": (
        "Saved. One more question about this item, in place of the responses.",
        "已保存。关于此题还有一个问题，显示在回答的位置。",
    ),
    "rater_saved_next": ("Saved. Here is the next item.", "已保存。下面是下一题。"),
    "rater_skipped": ("Skipped.", "已跳过。"),
    "rater_skipped_next": ("Skipped. Here is the next item.", "已跳过。下面是下一题。"),
    "rater_thank_you": ("Thank you.", "谢谢。"),
    "rater_thank_you_next": ("Thank you. Here is the next item.", "谢谢。下面是下一题。"),
    "rater_flagged": (
        "Flagged {what}: {reason}. The organizer will see it; go on rating.",
        "已报告{what}：{reason}。组织者会看到；请继续评分。",
    ),
    "rater_already_flagged": ("You had already flagged {what} for that reason.", "你已经因为这个原因报告过{what}。"),
    "rater_flag_moved_on": (
        "Nothing was flagged: the page had moved on to another item. Go back to that item to flag it.",
        "未报告：页面已经换到了另一题。请回到那一题再报告。",
    ),
    "rater_this_item": ("this item", "此题"),
    "rater_response": ("Response {label}", "回答 {label}"),
    "rater_response_lower": ("response {label}", "回答 {label}"),
    "rater_all_rated": (
        "You have rated all {n} items of this study. Thank you! Use Previous to review or change a rating.",
        "你已评完本研究的全部 {n} 道题。谢谢！可以用“上一题”查看或修改评分。",
    ),
    "rater_all_handled": (
        "You have gone through all {n} items of this study: {rated} rated, {skipped} skipped. Thank you! Use Previous to review or change a rating.",
        "你已看完本研究的全部 {n} 道题：评分 {rated} 题，跳过 {skipped} 题。谢谢！可以用“上一题”查看或修改评分。",
    ),
    "rater_no_items_ready": ("This study has no items ready for rating yet.", "本研究还没有可以评分的题目。"),
    "rater_no_earlier_item": ("no earlier item", "没有更早的题目"),
    "rater_no_further_item": ("no further item: this is the last one", "没有下一题：这是最后一题"),
    "rater_no_item_on_screen": ("there is no item on screen", "屏幕上没有题目"),
    "rater_no_item_to_rate": ("there is no item on screen to rate", "屏幕上没有可评分的题目"),
    "rater_no_item_to_skip": ("there is no item on screen to skip", "屏幕上没有可跳过的题目"),
    "rater_no_item_to_flag": ("there is no item on screen to flag", "屏幕上没有可报告的题目"),
    "rater_choose_skip_reason": ("choose a reason to skip this item", "请选择跳过此题的原因"),
    "rater_choose_flag_reason": ("choose a reason for the flag", "请选择报告的原因"),
    "rater_choose_flag_target": (
        "choose what to flag: the whole item or one response",
        "请选择要报告的内容：整道题或其中一条回答",
    ),
    "rater_enter_code": ("enter your invite code and press Start", "请输入邀请码，然后按“开始”"),
    "rater_code_changed": (
        "the invite code changed: press Start to continue with the new code",
        "邀请码已更改：请按“开始”用新邀请码继续",
    ),
    "rater_code_invalid": (
        "that invite code is not valid; check the link or ask the organizer for a new one",
        "邀请码无效；请检查链接，或向组织者索取新的邀请码",
    ),
    "rater_study_not_open": ("this study is not open for rating", "本研究未开放评分"),
    "rater_study_not_open_yet": ("this study is not open for rating yet", "本研究尚未开放评分"),
    "rater_study_closed": ("this study is closed: rating has ended. Thank you!", "本研究已关闭：评分已结束。谢谢！"),
    "dimension_name_coherence": ("coherence", "连贯性"),
    "dimension_name_informativeness": ("informativeness", "信息量"),
    "dimension_name_naturalness": ("naturalness", "自然度"),
    "story_sizes": (
        "N = {items} prompt{items_s}, {ratings} rating{ratings_s} by {raters} rater{s}",
        "N = {items} 个提示词，{raters} 位评分者的 {ratings} 条评分",
    ),
    "story_no_ratings": ("No ratings yet ({sizes}).", "还没有评分（{sizes}）。"),
    "story_family_n": ("adjusted over all {n} pairs × dimensions", "已对全部 {n} 个方法对 × 维度做多重比较校正"),
    "story_family": ("family-adjusted", "已做多重比较校正"),
    "story_scope": (
        "; this holds for {these} {n} rater{s} only (too few raters to speak for raters in general)",
        "；这只对这 {n} 位评分者成立（评分者太少，不能代表一般的评分者）",
    ),
    "story_scope_items": (
        "; this holds for {these} {n} prompt{s} only (too few prompts to speak for prompts in general; the raters are the sample)",
        "；这只对这 {n} 个提示词成立（提示词太少，不能代表一般的提示词；样本是评分者）",
    ),
    "story_lead": (
        "{method} leads on {dimension} ({confidence}: at least {lead:+.2f} points on the {scale} scale over every other method, 95% CI {low:+.2f} to {high:+.2f}, p ≤ {p:.2g} {adjusted})",
        "{method} 在{dimension}上领先（{confidence}：在 {scale} 分制上比其他每种方法至少高 {lead:+.2f} 分，95% CI {low:+.2f} 至 {high:+.2f}，p ≤ {p:.2g}，{adjusted}）",
    ),
    "story_join": ("; ", "；"),
    "story_list": (", ", "、"),
    "story_no_leader": ("; no clear leader on {dimensions}", "；在{dimensions}上没有明确的领先者"),
    "story_end": (" ({sizes}).", "（{sizes}）。"),
    "story_pair": (
        "No method leads overall; the clearest difference: {better} is rated above {worse} on {dimension} by {diff:.2f} points ({confidence}, p = {p:.2g} {adjusted})",
        "没有方法全面领先；最明显的差异：{better} 在{dimension}上的评分比 {worse} 高 {diff:.2f} 分（{confidence}，p = {p:.2g}，{adjusted}）",
    ),
    "story_no_difference": (
        "No clear difference yet between the methods ({sizes}).",
        "各方法之间还没有明确的差异（{sizes}）。",
    ),
    "story_no_agreement": (
        "Agreement between raters: not computable yet (needs 2+ raters on the same outputs).",
        "评分者之间的一致性：暂时无法计算（需要至少 2 位评分者评过相同的输出）。",
    ),
    "story_alpha": ("{dimension} α = {alpha:.3f}", "{dimension}（α = {alpha:.3f}）"),
    "story_level": ("{level} on {dimensions}", "在{dimensions}上{level}"),
    "story_raters": ("Raters ", "评分者"),
    "story_they": ("; they ", "；"),
    "story_careful": (", so treat those scores with care", "，因此请谨慎看待这些分数"),
    "story_scale": (
        "Krippendorff's α: 1 = perfect, 0 = chance, below 0 = worse than chance, ≥ 0.8 good, ≥ 0.667 tentative",
        "Krippendorff α：1 = 完全一致，0 = 相当于随机，低于 0 = 比随机还差，≥ 0.8 为好，≥ 0.667 为初步可信",
    ),
    "story_agreement_end": (" ({scale}).", "（{scale}）。"),
    "confidence_very_clearly": ("very clearly", "非常明确"),
    "confidence_clearly": ("clearly", "明确"),
    "confidence_probably": ("probably", "很可能"),
    "agreement_agree_well": ("agree well", "一致性好"),
    "agreement_agree_only_tentatively": ("agree only tentatively", "只是初步一致"),
    "agreement_often_disagree": ("often disagree", "经常意见不一"),
    "agreement_barely_agree": ("barely agree", "几乎没有一致"),
    "agreement_disagree_more_than_chance_would": ("disagree more than chance would", "分歧比随机还大"),
    "present_higher_is_better": ("↑ higher is better, ↓ lower is better.", "↑ 越高越好，↓ 越低越好。"),
    "present_bradley_terry_note": (
        "Bradley–Terry ratings on the Elo scale (mean 1000; 400 points = 10:1 odds), 95% intervals over prompts and raters; a rank only where intervals separate; at equal length = with the length difference fitted.",
        "Bradley–Terry 评分，换算到 Elo 尺度（均值 1000；相差 400 分 = 10:1 的胜算），95% 区间同时考虑提示词和评分者的抽样；只有区间分开时才给出名次；“等长时”= 拟合了长度差异之后的评分。",
    ),
    "present_per_method_caption_rubric": (
        "Per method. Human scores: mean over prompts on each question's own scale (in its column) [95% CI]. ",
        "每种方法。人工评分：各提示词上的平均分，按各问题自己的量表（见列名）[95% CI]。",
    ),
    "present_cut_at_top": ("cut at the scale’s top", "在量表上端截断"),
    "present_cut_at_bottom": ("cut at the scale’s bottom", "在量表下端截断"),
    "present_cut_at_both": ("cut at the scale’s bottom and top", "在量表两端截断"),
    "present_per_method_caption": (
        "Per method. Human scores: mean over prompts on 1–5 [95% CI]. ",
        "每种方法。人工评分：各提示词上的平均分，1–5 分 [95% CI]。",
    ),
    "present_not_found": ("There is no published study with that id.", "没有这个编号的已发布研究。"),
    "organizer_english_only_tick": (
        "{model} is trained on English only, so {count} Chinese prompt(s) of this study would get English or off-topic answers. Tick the multilingual {gemma} under Models above (with or instead of {model}).",
        "{model} 只用英文训练，本研究的 {count} 个中文提示词会得到英文或离题的回答。请在上方“模型”中勾选多语言的 {gemma}（与 {model} 一起或代替它）。",
    ),
    "organizer_english_only_mixed": (
        "{model} is trained on English only, so its outputs for {count} Chinese prompt(s) of this study will be English or off-topic. Untick it under Models above to compare on {gemma} alone.",
        "{model} 只用英文训练，它对本研究 {count} 个中文提示词的输出会是英文或离题的。请在上方“模型”中取消勾选它，只在 {gemma} 上比较。",
    ),
    "organizer_english_only_restart": (
        "{model} is trained on English only, so {count} Chinese prompt(s) of this study would get English or off-topic answers. This app offers no multilingual model; start it with `python app.py --model gemma-3-270m` for Chinese (docs/models.md).",
        "{model} 只用英文训练，本研究的 {count} 个中文提示词会得到英文或离题的回答。本应用没有多语言模型；要用中文，请用 `python app.py --model gemma-3-270m` 启动（docs/models.md）。",
    ),
    "model_note": ("**{alias}** · licence: {licence}", "**{alias}** · 许可：{licence}"),
    "model_note_where": (" (`{where}` in its package)", "（见其包内的 `{where}`）"),
    "model_note_base": (
        "; base model (no chat template): prompts are continued as raw text",
        "；基础模型（无对话模板）：提示按原始文本续写",
    ),
    "model_note_chat": ("; chat model: prompts go through its chat template", "；对话模型：提示经其对话模板"),
    "rater_comment_on_label": ("Comment on {label} (optional)", "对 {label} 的评论（可选）"),
}

# Compare, the pairwise page and /present in Chinese, third round (issue 47): kept in one block.
PAGE.update(
    {
        "compare_examples": ("Examples: the article's scenarios and tasks", "示例：文章中的场景和任务"),
        "run_blind": ("Run blind", "盲跑"),
        "compare_reserved_example": (
            "🔒 in a study being rated: not available here until it is published",
            "🔒 属于正在评分的研究：发布前这里不能用",
        ),
        "true": ("true", "是"),
        "false": ("false", "否"),
    }
)
LINES.update(
    {
        # not in PAGE: the table every page gets (the rater's too) names no method
        "compare_presets_info": (
            "Creative: TS-Temp T=1.1 · Balanced: TS-Tilted T=0.8 λ=0.1 · Precise: BS-4 length penalty 0.8",
            "创意：TS-Temp T=1.1 · 平衡：TS-Tilted T=0.8 λ=0.1 · 精确：BS-4 长度惩罚 0.8",
        ),
        "engine_model_line": (
            "**Model:** {name} · **device:** {device} · **precision:** {precision}{reason} · context {context} tokens",
            "**模型：** {name} · **设备：** {device} · **精度：** {precision}{reason} · 上下文 {context} 个 token",
        ),
        "engine_llamacpp_line": (
            "**Model:** {name} · **engine:** llama.cpp (llama-cpp-python {version}) on the CPU, {threads} threads · "
            "context {context} tokens · weights {mb} MB",
            "**模型：** {name} · **引擎：** llama.cpp（llama-cpp-python {version}），CPU 上 {threads} 个线程 · "
            "上下文 {context} 个 token · 权重 {mb} MB",
        ),
        "engine_vllm_line": (
            "**Engine:** vLLM server · **model:** {label} · timing measured on this side, see docs/engines.md",
            "**引擎：** vLLM 服务器 · **模型：** {label} · 计时在本端测量，见 docs/engines.md",
        ),
        "engine_dummy": (
            "**Engine:** dummy · fake text and timing, for tests (ARENA_ENGINE=dummy)",
            "**引擎：** dummy · 假的文本和计时，用于测试（ARENA_ENGINE=dummy）",
        ),
        "engine_note_licence": ("*Licence: {licence}*", "*许可：{licence}*"),
        "engine_note_base": (
            "*Base model (no chat template): prompts are continued as raw text*",
            "*基础模型（无对话模板）：提示词按原始文本续写*",
        ),
        "compare_small_model": (
            "*{name} has {size} parameters: expect weak Chinese and reasoning, and off-topic answers to hard prompts; "
            "it is here to compare decoding methods, not models.*",
            "*{name} 只有 {size} 参数：中文和推理能力弱，难的提示词会得到离题的回答；它在这里是为了比较解码方法，而不是比较模型。*",
        ),
        "memory_description": (
            "peak mem = highest memory during the run, weights included (CPU: process resident set, RSS, "
            "Linux only; GPU: tensor memory allocated by PyTorch); peak growth = that peak minus the level just "
            "before the run (on CPU a lower bound: memory kept by the allocator from earlier runs is reused); "
            "MiB, n/a where not measurable",
            "峰值内存 = 运行期间的最高内存，含权重（CPU：进程常驻内存 RSS，仅限 Linux；GPU：PyTorch 分配的张量内存）；"
            "峰值增长 = 该峰值减去运行前一刻的水平（CPU 上是下限：分配器保留的先前运行的内存会被复用）；单位 MiB，无法测量时为 n/a",
        ),
        "compare_memory_note": ("*Memory columns:* {help}.", "*内存列：* {help}。"),
        "more_methods_group_article": ("article {n}", "文章 {n}"),
        "more_methods_group_standard": ("standard sampler", "常用采样方法"),
        "results_no_texts": ("no texts", "没有文本"),
        "results_mauve_needs": ("needs ≥ {n} texts", "需要 ≥ {n} 条文本"),
        "compare_load_average": ("load average {load} on {cores} cores", "{cores} 核上的平均负载 {load}"),
        "compare_load_unknown": ("its load unknown", "负载未知"),
        "compare_timing_caveat": (
            "*One run on this machine ({device}; {load} just now): timings move from run to run and with the load. "
            "Compare methods within one run; steady figures come from `python -m evaluation.benchmark`.*",
            "*本机上的一次运行（{device}；刚才{load}）：计时随每次运行和负载而变。请在同一次运行内比较各方法；"
            "稳定的数字来自 `python -m evaluation.benchmark`。*",
        ),
        "compare_llamacpp_installed": (
            " · faster here with llama.cpp (installed): start with `ARENA_ENGINE=llamacpp`",
            " · 用 llama.cpp（已安装）会更快：以 `ARENA_ENGINE=llamacpp` 启动",
        ),
        "compare_llamacpp_not_installed": (
            " · faster on a CPU with llama.cpp: `bash scripts/setup.sh --llamacpp`, then start with "
            "`ARENA_ENGINE=llamacpp`",
            " · 在 CPU 上用 llama.cpp 会更快：先运行 `bash scripts/setup.sh --llamacpp`，再以 `ARENA_ENGINE=llamacpp` 启动",
        ),
    }
)

# /present's exclusion lines and table, its charts and blinding lines, and the pairwise rating page, in
# Chinese (issue 47): every sentence of those pages in both languages.
LINES.update(
    {
        "exclusion_no_rule": ("No exclusion rule: every rater is analysed.", "没有排除规则：所有评分者都纳入分析。"),
        "exclusion_excluded": (
            "{n} of {of} raters excluded {when} ({what}).",
            "{of} 位评分者中有 {n} 位{when}被排除（{what}）。",
        ),
        "exclusion_when_in_advance": ("by the rule set in advance", "按事先设定的规则"),
        "exclusion_when_at_creation": ("by the rule set at creation", "按创建研究时设定的规则"),
        # evaluation.human.quality.RULES: what each exclusion rule drops, by the rule's name
        "exclusion_rule_attention": ("failed any attention item", "没有通过某道注意力检查题"),
        "exclusion_rule_straight_lining": (
            "gave the same score to every response or on every question",
            "给每条回答或每个问题都打了相同的分",
        ),
        "exclusion_rule_speeder": ("too fast to have read the responses", "太快，不可能读完回答"),
        "exclusion_rule_against": ("scored against the other raters' consensus", "打分与其他评分者的共识相反"),
        "exclusion_rule_unrelated": (
            "scored unrelated to the responses (no agreement with the others beyond chance)",
            "打分与回答无关（与其他评分者的一致性不超过随机水平）",
        ),
        "sensitivity_none": ("No rater was excluded: there is nothing to compare.", "没有评分者被排除：无需对比。"),
        "sensitivity_head": (
            "With and without the {n} excluded rater{n_s}: ",
            "包含与不包含被排除的 {n} 位评分者相比：",
        ),
        "sensitivity_same": (
            "the same conclusions at α = {alpha} (adjusted over the family), so they do not hinge on the exclusion.",
            "在 α = {alpha}（已做多重比较校正）下结论相同，所以结论不取决于这次排除。",
        ),
        "sensitivity_differ": ("the conclusions differ: {parts}.", "结论不同：{parts}。"),
        "sensitivity_part": (
            "{a} vs {b} on {dimension} is a clear difference {found}",
            "{a} 与 {b} 在{dimension}上的差异{found}明确",
        ),
        "sensitivity_only_all": ("only with every rater", "仅在包含所有评分者时"),
        "sensitivity_only_kept": ("only without the excluded", "仅在不含被排除者时"),
        "sensitivity_in_neither": ("in neither", "在两种情况下都不"),
        "sensitivity_and": (" and ", "和"),
        "sensitivity_caption": (
            "With every rater and without the excluded, side by side",
            "包含所有评分者与不含被排除者，并列对比",
        ),
        "sensitivity_region": ("with and without the excluded raters", "包含与不包含被排除的评分者"),
        # evaluation.report.SENSITIVITY_NAMES: the side-by-side table's columns
        "sensitivity_col_dimension": ("dimension", "维度"),
        "sensitivity_col_pair": ("a vs b", "a 对 b"),
        "sensitivity_col_all": ("every rater: a − b [95% CI]", "所有评分者：a − b [95% CI]"),
        "sensitivity_col_p_all": ("p, every rater", "p，所有评分者"),
        "sensitivity_col_kept": ("without the excluded: a − b [95% CI]", "不含被排除者：a − b [95% CI]"),
        "sensitivity_col_p_kept": ("p, without the excluded", "p，不含被排除者"),
        "sensitivity_col_changed": ("conclusion changes", "结论是否改变"),
        "sensitivity_vs": ("{a} vs {b}", "{a} 对 {b}"),
        "no_interval": ("{value} (no interval)", "{value}（无区间）"),
        "yes": ("yes", "是"),
        "no": ("no", "否"),
        "results_no_ci": ("(no CI)", "（无 CI）"),
        # the charts (evaluation/results.py): titles, axes, legend, what a pointer over a mark shows
        "chart_scores_title": (
            "Human scores ↑ (mean over prompts, 95% CI)",
            "人工评分 ↑（各提示词上的平均分，95% CI）",
        ),
        "chart_score_axis": ("score ({low} = worst, {high} = best)", "评分（{low} = 最差，{high} = 最好）"),
        "chart_score_axis_mixed": ("score (higher = better; scales differ)", "评分（越高越好；各量表不同）"),
        "chart_mean_axis": ("mean {axis} ↑", "平均{axis} ↑"),
        "chart_latency_title": (
            "Quality ↑ against latency ↓ (markers: {shapes})",
            "质量 ↑ 对比延迟 ↓（标记：{shapes}）",
        ),
        "chart_latency_axis": ("mean latency per output (ms) ↓", "每条输出的平均延迟（ms）↓"),
        "chart_hover_score": ("{x}: {y} ({n})", "{x}：{y}（{n}）"),
        "chart_prompts": ("{n} prompt{n_s}", "{n} 个提示词"),
        "chart_hover_latency": ("{dimension}: {y} at {x} ms", "{dimension}：{y}（{x} ms）"),
        "chart_shape": ("{shape} = {dimension}", "{shape} = {dimension}"),
        "chart_symbol_circle": ("circle", "圆形"),
        "chart_symbol_square": ("square", "方形"),
        "chart_symbol_diamond": ("diamond", "菱形"),
        "chart_symbol_triangle": ("triangle", "三角形"),
        "chart_symbol_cross": ("cross", "十字"),
        "chart_symbol_x": ("x", "叉形"),
        "chart_symbol_star": ("star", "星形"),
        "chart_symbol_hexagon": ("hexagon", "六边形"),
        "chart": ("chart", "图表"),
        # the blinding index in words (evaluation/blinding.py)
        "blind_not_asked": (
            "No rater was asked which response came from {method}.",
            "没有评分者被问过哪条回答来自 {method}。",
        ),
        "blind_dont_know_part": ('; {dk} of {n} answers were "don\'t know"', "；{n} 个回答中有 {dk} 个是“不知道”"),
        "blind_stats": (
            "blinding index {index:+.2f}, 95% CI {low:+.2f} to {high:+.2f}, over {items} item{items_s}{dk}; "
            "1 = always recognised, 0 = chance",
            "盲评指数 {index:+.2f}，95% CI {low:+.2f} 至 {high:+.2f}，基于 {items} 道题{dk}；1 = 总能认出，0 = 随机水平",
        ),
        "blind_pooled": (
            "; the index is the mean over items of each item's mean, Bang's pooled over answers is {pooled:+.2f}",
            "；该指数是各题均值的平均，按回答合并的 Bang 指数为 {pooled:+.2f}",
        ),
        "blind_all_dont_know": (
            'Every answer about {method} was "don\'t know" ({n} answers over {items} item{items_s}): nobody guessed, '
            "so these answers cannot show whether raters could tell {method} (no index or interval to report).",
            "关于 {method} 的每个回答都是“不知道”（{items} 道题上的 {n} 个回答）：没有人猜，所以这些回答无法说明"
            "评分者能否认出 {method}（没有指数或区间可报告）。",
        ),
        "blind_share": (
            "Raters picked {method} in {share:.0f}% of their guesses (chance {chance:.0f}%)",
            "评分者在 {share:.0f}% 的猜测中选中了 {method}（随机水平 {chance:.0f}%）",
        ),
        "blind_not_kept": ("the blind did not hold for {method}", "对 {method} 的盲评没有保持住"),
        "blind_wrong": (
            "less often than chance: raters systematically took another response for {method}",
            "低于随机水平：评分者系统性地把另一条回答当成了 {method}",
        ),
        "blind_chance": (
            "consistent with chance: no sign that raters could tell {method}",
            "与随机水平一致：没有迹象表明评分者能认出 {method}",
        ),
        "blind_sentence": ("{share}: {verdict} ({stats}).", "{share}：{verdict}（{stats}）。"),
        # the pairwise rating page (ui/rate/pairwise.py, arena/rating/pair_rating.py)
        "pair_progress": (
            "Item {index} of {total} · you have judged {judged} of {total}",
            "第 {index} 题，共 {total} 题 · 你已评判 {judged} / {total} 题",
        ),
        "pair_your_vote": (
            " · your vote: {vote} (voting again replaces it)",
            " · 你的投票：{vote}（再次投票会替换它）",
        ),
        "pair_skipped_note": (" · you skipped this item; voting replaces the skip", " · 你跳过了此题；投票会取代跳过"),
        "pair_winner_a": ("A is better", "A 更好"),
        "pair_winner_b": ("B is better", "B 更好"),
        "pair_winner_tie": ("Tie", "平局"),
        "pair_winner_bothbad": ("Both bad", "都不好"),
        "pair_saved_one_more_question": ("Saved. One more question about this item.", "已保存。关于此题还有一个问题。"),
        "pair_flagged": (
            "Flagged {what}. The organizer will see it; go on voting.",
            "已报告{what}。组织者会看到；请继续投票。",
        ),
        "pair_already_flagged": ("Already flagged.", "已经报告过了。"),
        "pair_all_judged": (
            "You have judged all {n} items of this study. Thank you! Use Previous to review or change a vote.",
            "你已评判本研究的全部 {n} 道题。谢谢！可以用“上一题”查看或修改投票。",
        ),
        "pair_no_item_to_vote": ("there is no item on screen to vote on", "屏幕上没有可投票的题目"),
        "pair_unknown_item": ("unknown item; reload the study and try again", "未知的题目；请重新加载研究后再试"),
        "rater_item_not_opened": (
            "this item was not opened by this rater; press Start to load it",
            "此题不是由你打开的；请按“开始”加载",
        ),
        "pair_not_pairwise": (
            "this study scores each response 1-5; it takes no A-vs-B votes",
            "本研究为每条回答打 1–5 分；不接受 A/B 投票",
        ),
        "study_does_not_exist": ("that study does not exist", "该研究不存在"),
        "pair_guess_question": (
            "If one of these came from {method}, which one?",
            "如果其中一条来自 {method}，是哪一条？",
        ),
        "guess_answer_every": ('answer every question, or choose "Don\'t know"', "请回答每个问题，或选择“不知道”"),
        "rater_saved_already": ("That was saved already; nothing changed.", "这已经保存过了；没有任何改变。"),
    }
)

# A pairwise study on /present in Chinese (issue 47): its takeaway and explanation lines
# (evaluation/pairwise/words.py), the warnings and provisional marks of its ratings (evaluation/pairwise/rate.py,
# bt.py), its leaderboard's cells (evaluation/pairwise_view.py); and the 1-5 page's blind question.
LINES.update(
    {
        "pw_no_votes_takeaway": ("No votes yet: nothing to rank.", "还没有投票：无从排名。"),
        "pw_no_clear_no_interval": (
            "No system is clearly ahead of another: the votes give no interval to tell them apart "
            "({votes} votes on {items} items from {raters} raters).",
            "没有哪个系统明显领先于另一个：这些投票给不出区分它们的区间（{raters} 位评分者在 {items} 道题上的 {votes} 次投票）。",
        ),
        "pw_no_clear_within": (
            "No system is clearly ahead of another: every difference is within its {level} interval of zero "
            "({votes} votes on {items} items from {raters} raters).",
            "没有哪个系统明显领先于另一个：每个差异的 {level} 区间都包含零（{raters} 位评分者在 {items} 道题上的 {votes} 次投票）。",
        ),
        "pw_ranks": (
            "Ranks supported at {level}: {parts} (a range: the data cannot place it more exactly).",
            "数据在 {level} 水平上支持的名次：{parts}（名次为范围时，数据无法把它排得更精确）。",
        ),
        "pw_rank_part": ("{system} ({rank})", "{system}（第 {rank} 名）"),
        "pw_ahead_by": (
            "{a} is ahead of {b} by {diff:.0f} Elo points ({level} CI {low:.0f} to {high:.0f}): it would win about "
            "{win:.0%} of their comparisons.",
            "{a} 领先 {b} {diff:.0f} 个 Elo 分（{level} CI {low:.0f} 至 {high:.0f}）：两者比较时它约能赢 {win:.0%}。",
        ),
        "pw_ahead_not_estimable": (
            "{a} is ahead of {b} (the size of the gap is {not_estimable}).",
            "{a} 领先 {b}（差距的大小{not_estimable}）。",
        ),
        "pw_not_estimable": ("not estimable from these votes (too few)", "无法从这些投票中估计（投票太少）"),
        "pw_provisional": (
            "{system} is provisional ({why}): no rank until it has more votes.",
            "{system} 的评分是暂定的（{why}）：得到更多投票之前没有名次。",
        ),
        "pw_length_same": (
            "Every answer in these votes has the same length as its rival: length cannot be controlled for.",
            "这些投票中每个回答都和对手一样长：无法控制长度的影响。",
        ),
        "pw_length_not_estimable": (
            "The length effect is {not_estimable}: its {level} interval is wider than {width:.0f} Elo points.",
            "长度效应{not_estimable}：它的 {level} 区间宽于 {width:.0f} 个 Elo 分。",
        ),
        "pw_length_sways": (
            "Length sways the votes: an answer twice as long as its rival gains {gain:+.0f} Elo points "
            "({level} CI {low:+.0f} to {high:+.0f}). Controlling for length, {system} moves from {before:.0f} to "
            "{after:.0f}.",
            "长度左右了投票：比对手长一倍的回答多得 {gain:+.0f} 个 Elo 分（{level} CI {low:+.0f} 至 {high:+.0f}）。"
            "控制长度后，{system} 从 {before:.0f} 变为 {after:.0f}。",
        ),
        "pw_length_none": (
            "No clear length effect: twice as long as the rival is worth {gain:+.0f} Elo points "
            "({level} CI {low:+.0f} to {high:+.0f}).",
            "没有明确的长度效应：比对手长一倍相当于 {gain:+.0f} 个 Elo 分（{level} CI {low:+.0f} 至 {high:+.0f}）。",
        ),
        # evaluation/pairwise/rate.py: why a system is provisional (parts joined by "; "), and the warnings
        "pw_fewer_votes": ("{n} votes (fewer than {least})", "{n} 次投票（少于 {least} 次）"),
        "pw_fewer_items": ("{n} items (fewer than {least})", "{n} 道题（少于 {least} 道）"),
        "pw_never_compared_main": ("never compared with the main set of systems", "从未与主要的一组系统比较过"),
        "pw_warn_separated": (
            "No finite maximum-likelihood ratings: {systems}. The ratings add one virtual tie per system against an "
            "average one; those systems have no interval, and the scale is centred on the others.",
            "没有有限的最大似然评分：{systems}。评分为每个系统加了一场与平均系统的虚拟平局；这些系统没有区间，尺度以其余系统为中心。",
        ),
        "pw_separated_system": ("{system} {why}", "{system}：{why}"),
        "pw_warn_components": (
            "Some systems were never compared, even through others: {groups}. Each set is on its own scale "
            "(mean 1000); ratings across sets cannot be compared.",
            "有些系统从未被比较过，连通过其他系统间接比较也没有：{groups}。每组有自己的尺度（均值 1000）；不同组的评分不能相互比较。",
        ),
        "pw_warn_one_rater": (
            "One rater: the intervals say how sure these votes make us of this rater's preferences, not of raters' "
            "in general.",
            "只有一位评分者：区间说明这些投票让我们对这位评分者的偏好有多确定，而不是对评分者总体的偏好。",
        ),
        "pw_warn_all_ties": (
            "Every vote was a tie or 'both bad': the votes cannot tell the systems apart, and no interval can be "
            "built from them (every rating is the scale's centre, 1000).",
            "每一票都是平局或“都不好”：这些投票无法区分各系统，也无法由它们构造区间（每个评分都是尺度的中心 1000）。",
        ),
        "pw_warn_no_interval": (
            "No interval for {who}: their votes never vary, so nothing says how far the rating could be off.",
            "{who} 没有区间：它们的投票从不变化，所以无从知道评分可能偏离多远。",
        ),
        # evaluation/pairwise/bt.py: why a system's rating is not finite
        "pw_won_every": ("won every comparison", "赢了每一次比较"),
        "pw_lost_every": ("lost every comparison", "输了每一次比较"),
        "pw_never_lost": (
            "it and the systems level with it never lost to the rest",
            "它和与它持平的系统从未输给其余系统",
        ),
        "pw_never_beat": (
            "it and the systems level with it never beat the rest",
            "它和与它持平的系统从未赢过其余系统",
        ),
        "pw_no_finite_gap": ("no finite gap to the main group", "与主要的一组之间没有有限的差距"),
        # the leaderboard's "provisional" cell
        "pw_provisional_yes": ("yes: {why}", "是：{why}"),
        # the 1-5 rating page's blind question (arena/rating/guessing.py) and its refusals
        "guess_question": ("Which response do you think came from {method}?", "你认为哪条回答来自 {method}？"),
        "guess_no_such_response": ("there is no response {letter} in this item", "此题中没有回答 {letter}"),
        "guess_score_first": (
            "score every response of this item first; the question comes after",
            "请先为此题的每条回答打分；问题在打分之后",
        ),
        "guess_not_asked": ("that question is not asked in this study", "本研究不问这个问题"),
    }
)

# The Results tab in Chinese (issue 47): a pairwise study's headline and notes (ui/results.py,
# evaluation/pairwise_view.py) and the cross-study board's words, kinds and columns (evaluation/pairwise_board.py).
LINES.update(
    {
        "pw_headline": ("{sizes} · methods: {methods}", "{sizes} · 方法：{methods}"),
        "pw_headline_no_votes": ("No votes in this study.", "本研究还没有投票。"),
        "results_pairwise_kind": ("pairwise (A vs B votes)", "成对比较（A 对 B 投票）"),
        "results_pairwise_help": (
            "A pairwise study: each rater saw two responses per prompt and voted. Ratings are Bradley–Terry on the "
            "Elo scale (mean 1000; 400 points = 10:1 odds), a tie or 'both bad' half a win for each side; 95% "
            "intervals treat prompts and raters as samples. A rank is shown only where intervals separate; a "
            "method with few votes is provisional. 'At equal length' is the rating with the length difference "
            "of the two responses fitted as a covariate (docs/pairwise.md).",
            "成对比较研究：每位评分者对每个提示词看到两条回答并投票。评分是 Elo 刻度上的 Bradley–Terry 模型"
            "（均值 1000；相差 400 分即 10:1 的胜率），平局或“都不好”各算半场胜利；95% 区间把提示词和评分者都当作样本。"
            "只有区间分开时才给出名次；投票很少的方法是暂定的。“等长时”是把两条回答的长度差作为协变量拟合后的评分。",
        ),
        # the Chinese names no address: the link goes there, and an address is no sentence to read
        "results_present_link": ("Presentation view for stakeholders: {url}", "给利益相关者看的展示页"),
        # {studies}: "study" or "studies" (Chinese needs neither)
        "board_headline": (
            "{n} {studies} of {models} ({pairwise} pairwise, {scores} 1–5) · {votes} comparisons on {items} "
            "prompts by {raters} raters",
            "{models} 的 {n} 项研究（{pairwise} 项成对比较，{scores} 项 1–5 评分）· {raters} 位评分者在 "
            "{items} 个提示词上的 {votes} 次比较",
        ),
        "board_kind_pairwise": ("pairwise votes", "成对投票"),
        "board_kind_scores": ("1–5 scores (implied comparisons)", "1–5 评分（由评分推出的比较）"),
        "board_column_system": ("system", "系统"),
        "board_column_comparisons": ("comparisons", "比较次数"),
        "board_column_studies": ("studies (comparisons)", "研究（比较次数）"),
        "board_column_kind": ("kind", "类型"),
        "board_column_raters": ("raters", "评分者数"),
        "board_column_max_new_tokens": ("max new tokens", "最多新 token 数"),
    }
)

# The 1-5 page's refusals that arena/rating/blind.py and ui/rate/once.py raise (issue 47): in the browser's
# language through ui/handler.py like the rest (tests/test_zh_pages.py scans the sources for them).
LINES.update(
    {
        "rater_malformed_request": ("malformed request", "请求格式不对"),
        "rater_malformed_item_number": (
            "malformed request: the item it is for is not a number",
            "请求格式不对：它所针对的题目不是数字",
        ),
        "rater_malformed_item_position": (
            "malformed request: the item it is for is not a position",
            "请求格式不对：它所针对的题目不是一个位置",
        ),
        "rater_study_is_pairwise": (
            "this study is rated in pairs (A vs B), not with 1-5 scores",
            "本研究按成对比较（A 对 B）评判，不用 1–5 分",
        ),
        "rater_unknown_item_reload": ("unknown item; reload the study", "未知的题目；请重新载入研究"),
        "rater_item_not_ready": ("that item is not ready for rating", "这道题还不能评分"),
        "rater_comment_not_text": ("a comment must be text", "评语必须是文字"),
        "rater_scores_missing": ("scores are missing", "缺少评分"),
        "rater_comments_by_label": ("comments must map response labels to text", "评语必须按回答的字母给出文字"),
        "rater_study_asks_no_question": ("this study asks no question about the methods", "本研究不问关于方法的问题"),
        "rater_item_asks_no_question": ("this item asks no question about the methods", "此题不问关于方法的问题"),
    }
)

# The Results tab of a 1-5 study in Chinese (issue 47): the headline, the statistics' lines
# (evaluation/human/words.py, choices.py), the statistics tables' column names and their fixed cells, the
# story's link and the tab's own lines (evaluation/report.py, evaluation/results.py, ui/results.py).
LINES.update(
    {
        "results_no_study": (
            "No published study yet: an organizer publishes a study once its rating has closed.",
            "还没有已发布的研究：评分结束后，由组织者发布研究。",
        ),
        "results_choose_above": ("Choose a study above.", "请在上方选择一个研究。"),
        "results_scoring_progress": ("Perplexity: {n} outputs scored", "困惑度：已为 {n} 条输出打分"),
        "outputs": ("outputs", "输出"),
        # arena.model.model_names.model_in_words: a model named for people
        "model_unnamed": ("an unnamed model", "未命名的模型"),
        "model_parameters": ("{n} {unit} parameters", "{n}{unit} 参数"),
        "model_named": ("{model} ({parts})", "{model}（{parts}）"),
        "stat_partialled": ("(method partialled out)", "（控制方法之后）"),  # a progress bar's unit, a table's column
        # a rater's name on a public page (evaluation.human.stats.pseudonymize_raters)
        "rater_pseudonym": ("rater {n}", "评分者 {n}"),
        "results_headline": (
            '{sizes} · {unjudged} "can\'t judge" answers (not counted as scores) · methods: {methods} · {perplexity}',
            "{sizes} · {unjudged} 个“无法判断”的回答（不计入评分）· 方法：{methods} · {perplexity}",
        ),
        "results_methods_none": ("none yet", "暂无"),
        "results_perplexity_under": ("perplexity under {scorer}", "困惑度按 {scorer} 计算"),
        "results_perplexity_not_computed": ("perplexity not computed", "未计算困惑度"),
        "results_scorer_study": (
            "{named}, the study's one scorer for every system",
            "{named}，本研究给所有系统打分的同一个模型",
        ),
        "results_scorer_one_model": ("one model", "同一个模型"),
        "results_scorer_servers": ("the server’s model", "服务器的模型"),
        "results_present_own_page": (
            "(a page of its own: no tabs, no controls)",
            "（独立页面：没有标签页，也没有控件）",
        ),
        "column_task_success": ("task success ↑", "任务成功率 ↑"),
        "results_not_checked": ("not checked", "未检查"),
        "scale_yes_no": ("yes/no", "是/否"),
        "scale_points": ("{scale} points", "{scale} 分"),
        # evaluation.human.words: one line per result
        "hw_this_prompt": ("this prompt", "这个提示词"),
        "hw_these_n_prompts": ("these {n} prompts", "这 {n} 个提示词"),
        "hw_these_prompts": ("these prompts", "这些提示词"),
        "hw_scope_items": (
            " Holds for {what} only: too few prompts to say how other prompts would fare (the raters are the sample).",
            "仅对{what}成立：提示词太少，无法说明其他提示词会怎样（样本是评分者）。",
        ),
        "hw_these_n_raters": ("these {n} rater{n_s}", "这 {n} 位评分者"),
        "hw_these_raters": ("these raters", "这些评分者"),
        "hw_scope_raters": (
            " Holds for {who} only: too few raters to say how raters in general would score.",
            "仅对{who}成立：评分者太少，无法说明一般的评分者会怎样打分。",
        ),
        "hw_items": ("{n} item{n_s}", "{n} 道题"),
        "hw_items_unknown": ("{n} items", "{n} 道题"),
        "hw_interval": ("95% CI {low:+.2f} to {high:+.2f}", "95% CI {low:+.2f} 至 {high:+.2f}"),
        "hw_pair_head": ("{a} vs {b} on {dimension}: ", "{a} 对 {b}，{dimension}："),
        "hw_pair_no_data": ("no item where one rater scored both.", "没有哪道题由同一位评分者给两者都打了分。"),
        "hw_pair_not_testable": (
            "{a} − {b} = {d:+.2f} on one item: not testable (one item shows nothing of how items vary).",
            "{a} − {b} = {d:+.2f}，只有一道题：无法检验（一道题看不出题目之间的差异）。",
        ),
        "hw_pair_not_estimable": (
            "{a} − {b} = {d:+.2f} on {items}, the same on every item and rater: not estimable "
            "(no variation to build an interval from).",
            "{a} − {b} = {d:+.2f}，共 {items}，每道题、每位评分者都一样：无法估计（没有可用来构建区间的变异）。",
        ),
        "hw_pair_no_spread": (
            "{a} − {b} = {d:+.2f} on {items}: not estimable (the differences do not vary across the sample "
            "the interval is about, so no interval can be built from them).",
            "{a} − {b} = {d:+.2f}，共 {items}：无法估计（差值在区间所针对的样本之间没有变异，无法据此构建区间）。",
        ),
        "hw_adjusted": ("p = {p:.3g} adjusted over the family", "p = {p:.3g}，已在族内校正"),
        "hw_no_adjusted": ("no adjusted p", "没有校正后的 p"),
        "hw_n_raters": (", {n} raters", "，{n} 位评分者"),
        "hw_pair": (
            "{a} − {b} = {d:+.2f} points ({interval}, {items}{raters}, {adjusted})",
            "{a} − {b} = {d:+.2f} 分（{interval}，{items}{raters}，{adjusted}）",
        ),
        "hw_pair_higher": (
            ": {better} is rated higher ({confidence}); chance alone rarely gives a gap this size.",
            "：{better} 的评分更高（{confidence}）；仅凭偶然很少会出现这么大的差距。",
        ),
        "hw_pair_unclear": (
            ": no clear difference; the data fit anything in that interval.",
            "：没有明确的差异；区间内的任何值都与数据相符。",
        ),
        "hw_friedman_not_computed": (
            "Friedman on {dimension}: not computed (needs 3+ methods and 2+ items rated by all).",
            "Friedman 检验（{dimension}）：未计算（需要至少 3 种方法，且至少 2 道题评过所有方法）。",
        ),
        "hw_friedman_differ": (
            "at least one method is ranked differently from the others",
            "至少有一种方法的排名与其他方法不同",
        ),
        "hw_friedman_same": ("no evidence that the methods are ranked differently", "没有证据表明各方法的排名不同"),
        "hw_friedman": (
            "Friedman on {dimension} ({k} methods, {n} items): p = {p:.3g}, {verdict} (exploratory: treats the "
            "raters as fixed).",
            "Friedman 检验（{dimension}，{k} 种方法，{n} 道题）：p = {p:.3g}，{verdict}（探索性：把评分者视为固定）。",
        ),
        "hw_mixed_head": (
            "Mixed model, {dimension}: {a} − {b} = {est:+.2f}",
            "混合模型，{dimension}：{a} − {b} = {est:+.2f}",
        ),
        "hw_mixed_no_interval": (": interval not estimable.", "：区间无法估计。"),
        "hw_mixed_body": (
            " ({interval}, df {df}), {effect:+.2f} SD of a single rating; ",
            "（{interval}，df {df}），合单条评分的 {effect:+.2f} SD；",
        ),
        "hw_mixed_excludes": ("the interval excludes 0.", "区间不含 0。"),
        "hw_mixed_includes": (
            "the interval includes 0: no clear difference once item, rater, taste and output variation are allowed for.",
            "区间包含 0：考虑到题目、评分者、个人偏好和输出的变异后，没有明确的差异。",
        ),
        "hw_alpha_not_computable": (
            "Agreement on {dimension}: not computable (needs 2+ raters on the same outputs).",
            "{dimension}上的一致性：无法计算（需要至少 2 位评分者评过相同的输出）。",
        ),
        "hw_alpha": (
            "Agreement on {dimension}: Krippendorff's α = {alpha:.3f}, raters {level}.",
            "{dimension}上的一致性：Krippendorff α = {alpha:.3f}，评分者{level}。",
        ),
        "hw_position_not_estimable": ("Position on {dimension}: not estimable.", "位置效应（{dimension}）：无法估计。"),
        "hw_position_one_item": ("not testable: one item", "无法检验：只有一道题"),
        "hw_position_no_variation": ("interval not estimable (no variation)", "区间无法估计（没有变异）"),
        "hw_position_untested": (
            "Position on {dimension}: first − last = {d:+.2f} on {n} item(s), {why}.",
            "位置效应（{dimension}）：先展示 − 最后展示 = {d:+.2f}，共 {n} 道题，{why}。",
        ),
        "hw_position_first": ("outputs shown first get higher scores", "先展示的输出得分更高"),
        "hw_position_last": ("outputs shown last get higher scores", "最后展示的输出得分更高"),
        "hw_position_none": ("no clear position bias", "没有明确的位置偏差"),
        "hw_position": (
            "Position on {dimension}: shown first − shown last = {d:+.2f} ({interval}, {n} items): {tail}.",
            "位置效应（{dimension}）：先展示 − 最后展示 = {d:+.2f}（{interval}，{n} 道题）：{tail}。",
        ),
        "hw_mean_one_item": (
            "{method} on {dimension}: {mean:.2f} on one item, no interval (one item).",
            "{method}，{dimension}：{mean:.2f}，只有一道题，没有区间。",
        ),
        "hw_mean_no_interval": (
            "{method} on {dimension}: {mean:.2f}, interval not estimable (no variation).",
            "{method}，{dimension}：{mean:.2f}，区间无法估计（没有变异）。",
        ),
        "hw_mean": (
            "{method} on {dimension}: {mean:.2f} (95% CI {low:.2f} to {high:.2f}, {n} items).",
            "{method}，{dimension}：{mean:.2f}（95% CI {low:.2f} 至 {high:.2f}，{n} 道题）。",
        ),
        "hw_taste_items_fixed": (
            "Raters' own taste for a method: part of each difference's variation between raters, who are the sample "
            "(one or two prompts).",
            "评分者对某方法的个人偏好：算在每个差异在评分者之间的变异里，样本是评分者（只有一两个提示词）。",
        ),
        "hw_taste_not_estimable": (
            "Raters' own taste for a method: not estimable (needs 3+ raters on the same items).",
            "评分者对某方法的个人偏好：无法估计（需要至少 3 位评分者评过相同的题目）。",
        ),
        "hw_taste_lopsided": (
            "Raters' own taste for a method: one rater carries most of the differences, so the study can barely "
            "measure it (variance {variance:.3f} per difference, one-sided p = {p}); each difference "
            "counts every rater once instead (the mean of the raters' own mean differences), and its interval "
            "comes from how much raters differ, their taste included (raters − 1 degrees of freedom; the tails "
            "simulated for who rated what).",
            "评分者对某方法的个人偏好：大部分差异来自同一位评分者，所以本研究几乎测不出它（每个差异的方差 {variance:.3f}，"
            "单侧 p = {p}）；因此每个差异让每位评分者只算一次（各评分者自己的平均差异的平均），其区间来自评分者之间的"
            "差异，包括他们的偏好（自由度为评分者数 − 1；尾部按谁评了什么模拟）。",
        ),
        "hw_taste_present": (
            "Raters' own taste for a method: present (variance {variance:.3f} per difference, one-sided p = "
            "{p}); every pairwise interval includes it.",
            "评分者对某方法的个人偏好：存在（每个差异的方差 {variance:.3f}，单侧 p = {p}）；每个两两比较的区间都包含了它。",
        ),
        "hw_taste_not_detected": (
            "Raters' own taste for a method: not detected (p = {p}); the pairwise intervals use the items' variation.",
            "评分者对某方法的个人偏好：未检测到（p = {p}）；两两比较的区间用题目之间的变异。",
        ),
        "hw_lopsided": (
            "One rater gave {share:.0%} of the ratings: to speak for raters in general every rater counts once, "
            "that one's many ratings as much as each other rater's few ({n} raters in all), so the intervals "
            "are wide; more raters with an even share would narrow them.",
            "一位评分者给出了 {share:.0%} 的评分：为了代表一般的评分者，每位评分者只算一次，这位评分者的大量评分与其他"
            "每位评分者的少量评分分量相同（共 {n} 位评分者），所以区间很宽；更多评分者、分工更均匀会让区间变窄。",
        ),
        # evaluation.human.stats.family_words: the headline family
        "hw_family": (
            "{n} test{n_s} (every pair x {dims} dimension{dims_s}), {how}",
            "{n} 项检验（每个方法对 × {dims} 个维度），{how}",
        ),
        "hw_step_down_max_t": ("step-down max-T", "逐步 max-T"),
        "hw_holm": ("Holm", "Holm 法"),
        "hw_headline_family": (
            "**Headline family**: {family}, adjusted together; the takeaway names only these. Friedman and the "
            "mixed model are exploratory.\n",
            "**标题结论的检验族**：{family}，一起校正；结论只提这些结果。Friedman 检验和混合模型是探索性的。\n",
        ),
        "hw_no_ratings": ("No ratings yet.", "还没有评分。"),
        "hw_comment": ("- *{question}* on {method}: {text}", "- *{question}*，{method}：{text}"),
        "hw_comments": (
            "\n**Comments** ({n}, listed as written, not analysed):\n",
            "\n**评语**（{n} 条，按原文列出，不做分析）：\n",
        ),
        # evaluation.human.choices: a choice question's line
        "hw_choice_mostly": ("{method} mostly {label} ({share:.0%})", "{method} 多为 {label}（{share:.0%}）"),
        "hw_choice_no_answers": ("no answers yet", "还没有回答"),
        "hw_choice_not_testable": (
            "{question}: {picked}. Not testable: the answers use one label or one method only.",
            "{question}：{picked}。无法检验：回答只用了一个选项，或只有一种方法。",
        ),
        "hw_choice_depends": ("The answers depend on the method", "回答取决于方法"),
        "hw_choice_no_evidence": ("No evidence that the answers depend on the method", "没有证据表明回答取决于方法"),
        "hw_choice_test": (
            "permutation of the methods within each rater's item ({n} draws)",
            "在每位评分者的每道题内置换方法（{n} 次抽样）",
        ),
        "hw_choice": (
            "{question}: {picked}. {verdict} (chi-square {chi2:.1f}, p = {p:.3g} by {test}; over {n} answers, "
            "exploratory).",
            "{question}：{picked}。{verdict}（卡方 {chi2:.1f}，p = {p:.3g}，方法：{test}；共 {n} 个回答，探索性）。",
        ),
        # the statistics tables' column names (evaluation/results.py, evaluation/report.py LENGTH_TABLE_NAMES)
        # that no other table already names
        "stat_col_ci_low": ("95% CI low", "95% CI 下限"),
        "stat_col_ci_high": ("95% CI high", "95% CI 上限"),
        "stat_col_p_family": ("p (family)", "p（族内校正）"),
        "stat_col_status": ("status", "状态"),
        "stat_col_scope": ("scope", "适用范围"),
        "stat_col_k_methods": ("k_methods", "方法数"),
        "stat_col_statistic": ("statistic", "统计量"),
        "stat_col_alpha": ("alpha", "α"),
        "stat_col_units_pairable": ("units_pairable", "可配对的单元数"),
        "stat_col_spearman_rho": ("spearman_rho", "Spearman ρ"),
        "stat_col_n_outputs": ("n_outputs", "输出数"),
        "stat_col_effect": ("a − b (SD)", "a − b（SD）"),
        "stat_col_effect_low": ("SD CI low", "SD CI 下限"),
        "stat_col_effect_high": ("SD CI high", "SD CI 上限"),
        "stat_col_component": ("component", "方差分量"),
        "stat_col_variance": ("variance", "方差"),
        "stat_col_sd": ("sd", "标准差"),
        "stat_col_first": ("first", "先展示"),
        "stat_col_last": ("last", "最后展示"),
        "stat_col_first_last": ("first − last", "先展示 − 最后展示"),
        "stat_col_adjusted_for": ("adjusted_for", "中心化依据"),
        "stat_col_equal_diff": ("a − b at equal length", "等长时 a − b"),
        "stat_col_equal_ci": ("95% CI at equal length", "等长时 95% CI"),
        "stat_col_equal_p": ("p at equal length (unadjusted)", "等长时 p（未校正）"),
        "stat_col_slope": ("score per doubling of length [95% CI]", "长度每翻一倍的评分变化 [95% CI]"),
        # the statistics tables' fixed cells: a result's status and scope, a variance component, a centring
        "stat_status_ok": ("ok", "正常"),
        "stat_status_not_estimable": ("not estimable", "无法估计"),
        "stat_status_not_testable": ("not testable", "无法检验"),
        "stat_status_no_data": ("no data", "没有数据"),
        "stat_scope_all": ("items and raters", "题目和评分者"),
        "stat_scope_these": ("these raters only", "仅这些评分者"),
        "stat_scope_items": ("these prompts only", "仅这些提示词"),
        "stat_component_item": ("item", "题目"),
        "stat_component_output": ("output", "输出"),
        "stat_component_rater": ("rater", "评分者"),
        "stat_component_taste": ("rater:method", "评分者:方法"),
        "stat_component_item_rater": ("item:rater", "题目:评分者"),
        "stat_component_residual": ("residual", "残差"),
        "stat_component_pooled_taste": ("rater (pooled taste)", "评分者（合并的个人偏好）"),
    }
)

# The Organizer tab in Chinese (issue 47): what its handlers write (status lines, tables' column names and
# fixed cells, placeholders, the preview line); ui/organizer/words.py finds them here by their English.
# A "word_" message may stand inside another's sentence (a study's state in "Study #3 is now closed.").
LINES.update(
    {
        "organizer_unlocked": ("Unlocked.", "已解锁。"),
        "organizer_unlocked_quick": (
            'Unlocked. {n} quick rating{n_s} from Compare ("Send these to the Rate tab") {are} not listed; each is '
            "deleted {hours} h after it was made.",
            "已解锁。来自对比页的 {n} 个快速评分（“把这些输出送去盲评页”）不在列表中；每个都在创建 {hours} 小时后删除。",
        ),
        "organizer_now": ("Study #{id} is now **{state}**.", "研究 #{id} 现在是 **{state}** 状态。"),
        "organizer_mapping_shown": ("Mapping shown (organizer only).", "已显示对应关系（仅组织者可见）。"),
        "organizer_exported_rows": (
            "Exported {n} rows (downloaded as ratings.{fmt}).",
            "已导出 {n} 行（下载为 ratings.{fmt}）。",
        ),
        "organizer_exported_votes": (
            "Exported {n} votes of study #{id} (downloaded as votes-study-{id}.csv).",
            "已导出研究 #{id} 的 {n} 次投票（下载为 votes-study-{id}.csv）。",
        ),
        "organizer_exported_pairs": (
            "Exported {n} preference pairs of study #{id} (downloaded as pairs.jsonl).",
            "已导出研究 #{id} 的 {n} 个偏好对（下载为 pairs.jsonl）。",
        ),
        # {study_word}: "study" or "studies" (Chinese needs neither)
        "organizer_imported": (
            "Imported {ratings} rating{ratings_s} ({studies} new {study_word}, {items} item{items_s}, "
            "{outputs} output{outputs_s}).",
            "已导入 {ratings} 条评分（新增 {studies} 项研究、{items} 道题、{outputs} 个输出）。",
        ),
        "organizer_invited": (
            "{n} invite code{n_s} created for study #{id}. They are shown only now: download the CSV or copy "
            "the links.",
            "已为研究 #{id} 生成 {n} 个邀请码。邀请码只在此刻显示：请下载 CSV 或复制链接。",
        ),
        "organizer_revoked": ("Code revoked; their ratings stay.", "邀请码已撤销；其评分保留。"),
        "organizer_nothing_to_revoke": (
            "That rater had no live code in this study.",
            "该评分者在这项研究中没有有效的邀请码。",
        ),
        "word_draft": ("draft", "草稿"),
        "word_open": ("open", "开放评分"),
        "word_closed": ("closed", "已关闭"),
        "word_published": ("published", "已发布"),
        "word_deleted": ("deleted", "已删除"),
        "word_pairwise": ("pairwise", "成对比较"),
        # placeholders: a table with nothing to show says so in its first cell
        "organizer_enter_password": ("enter the organizer password above", "请在上方输入组织者密码"),
        "organizer_no_studies": ("no studies yet: create one above", "还没有研究：请在上方创建"),
        "organizer_no_study": ("no study yet: create one above", "还没有研究：请在上方创建一个"),
        "organizer_no_raters": ("no raters yet: invite some below", "还没有评分者：请在下方邀请"),
        "organizer_no_raters_invited": ("no raters invited yet", "还没有邀请评分者"),
        "organizer_no_flags": ("no flags from raters", "评分者没有报告问题"),
        "organizer_choose_study": ("choose a study above", "请在上方选择一个研究"),
        "organizer_no_new_codes": ("no new codes yet", "还没有新的邀请码"),
        "organizer_not_revealed": ("not revealed: press the button above", "未显示：请按上方的按钮"),
        # the tables' column names
        "organizer_col_studies": ("studies", "研究"),
        "organizer_col_id": ("id", "编号"),
        "organizer_col_name": ("name", "名称"),
        "organizer_col_state": ("state", "状态"),
        "organizer_col_model": ("model", "模型"),
        "organizer_col_methods": ("methods", "方法"),
        "organizer_col_samples": ("samples", "每种方法的样本数"),
        "organizer_col_ready_items": ("ready items", "可评的题数"),
        "organizer_col_ratings": ("ratings", "评分数"),
        "organizer_col_created": ("created", "创建时间"),
        "organizer_col_done_share": ("% done", "完成 %"),
        "organizer_col_items_done": ("items done", "已完成题数"),
        "organizer_col_skipped": ("skipped", "跳过"),
        "organizer_col_median": ("median s / item", "每题中位秒数"),
        "organizer_col_last": ("last activity (UTC)", "最近活动（UTC）"),
        "organizer_col_rater_index": ("rater_index", "评分者序号"),
        "organizer_col_has_code": ("has_code", "有邀请码"),
        "organizer_col_revoked_at": ("revoked_at", "撤销时间"),
        "organizer_col_created_at": ("created_at", "加入时间"),
        "organizer_col_what": ("what", "对象"),
        "organizer_col_reason": ("reason", "原因"),
        "organizer_col_note": ("note", "说明"),
        "organizer_col_when": ("when (UTC)", "时间（UTC）"),
        "organizer_col_code": ("code", "邀请码"),
        "organizer_col_link": ("link", "链接"),
        "organizer_col_label": ("label", "标签"),
        "organizer_col_position_balance": ("position balance", "位置平衡"),
        "organizer_col_balanced_blocks": ("balanced blocks", "平衡区组"),
        "organizer_col_items_shown": ("items shown", "展示的题数"),
        "organizer_col_block_size": ("block size", "区组大小"),
        "organizer_col_complete_blocks": ("complete blocks", "完整区组数"),
        "organizer_col_items_in_blocks": ("items in complete blocks", "完整区组中的题数"),
        "organizer_col_check": ("check", "检查项"),
        "organizer_col_result": ("result", "结果"),
        "organizer_col_detail": ("detail", "详情"),
        # the tables' fixed cells
        "organizer_not_started": ("not started", "未开始"),
        "organizer_items_done": ("{done} of {n}", "{done} / {n}"),
        "organizer_all_raters": ("all {n} raters", "全部 {n} 位评分者"),
        "organizer_whole_item": ("whole item", "整道题"),
        "organizer_response_seen": ("response {label} as this rater saw it", "该评分者看到的回答 {label}"),
        "organizer_a_response": ("a response", "某条回答"),
        "organizer_balance_check": (
            "positions balanced (counts per method shown after closing)",
            "位置是否平衡（关闭后显示各方法的计数）",
        ),
        "organizer_balance_pass": ("pass", "通过"),
        "organizer_balance_fail": ("FAIL", "不通过"),
        "organizer_balance_none": ("no rater has completed a balanced block yet", "还没有评分者完成一个平衡区组"),
        "organizer_balance_ok": (
            "every method at every position equally often over {n} complete block{n_s}",
            "在 {n} 个完整区组中，每种方法出现在每个位置的次数相同",
        ),
        "organizer_balance_bug": (
            "the recorded orders are not balanced: report this as a bug",
            "记录的顺序不平衡：请作为缺陷报告",
        ),
        # the preview line above "Create study" (ui/organizer/dashboard.py, arena/runs/estimate.py)
        "preview_line": ("**Preview:** {line}", "**预览：** {line}"),
        "preview_locked": (
            "**Preview:** enter the organizer password above to see counts and time.",
            "**预览：** 在上方输入组织者密码即可看到数量和时间。",
        ),
        "preview_no_method": ("Choose at least one method.", "请至少选择一种方法。"),
        "preview_not_whole": (
            "Enter whole numbers for samples and max_new_tokens.",
            "样本数和最多生成的 token 数请填整数。",
        ),
        "preview_no_prompts": ("No prompts yet.", "还没有提示词。"),
        "preview_first_prompts": ("\n\nFirst prompts:\n{lines}{more}", "\n\n前几个提示词：\n{lines}{more}"),
        "preview_more": ("\n\n…and {n} more", "\n\n……还有 {n} 个"),
        "estimate_attention": (" + {n} attention item{n_s}", " + {n} 道注意力检查题"),
        "estimate_methods": (" × {n} method{n_s}", " × {n} 种方法"),
        "estimate_slots": (" ({n} outputs per prompt with samples)", "（含多次采样，每个提示词 {n} 条输出）"),
        "estimate_outputs": (" = {n} output{n_s}", " = {n} 条输出"),
        "estimate_fixed": (
            " ({n} of them the attention items' instructions, not generated)",
            "（其中 {n} 条是注意力检查题的指示，不用生成）",
        ),
        "estimate_unmeasured": (
            "; no timing measured on this machine yet for this model (run Compare once and the estimate appears here)",
            "；本机还没有测过这个模型的速度（在对比页运行一次，这里就会出现估计）",
        ),
        "estimate_minutes": ("about {n} min", "约 {n} 分钟"),
        "estimate_seconds": ("about {n} s", "约 {n} 秒"),
        "estimate_guessed": (
            "; {methods} not measured yet, counted at the slowest rate",
            "；{methods} 还没有测过，按最慢的速度计算",
        ),
        "estimate_time": (
            ", {when} on this machine at most (up to {max_new} tokens each at the measured {rate} tokens/s median, "
            "one at a time; batching is usually faster{note})",
            "，本机上最多{when}（每条最多 {max_new} 个 token，按测得的中位速度 {rate} token/秒逐条生成；"
            "批量生成通常更快{note}）",
        ),
    }
)

# The Organizer in Chinese, second part (issue 47): the lines after each action (create, resume, invite,
# revoke, import, delete), the refusals on the way (the form, the rubric, the numbers, the files), the
# diagnostics and the power planner, the form check, the replay check and the blinding index; the
# column names of their tables. ui/organizer/words.py and `translated` find them by their English.
LINES.update(
    {
        "full_stop": (".", "。"),
        "choose_a_study": ("choose a study", "请选择一个研究"),
        "choose_one_method": ("choose at least one method", "请至少选择一种方法"),
        "no_study_number": ("there is no study #{id}", "没有研究 #{id}"),
        "no_study_with_id": ("no study with id {id}", "没有编号为 {id} 的研究"),
        "no_rater_named": ("there is no rater {name}", "没有名为 {name} 的评分者"),
        # the password
        "organizer_disabled": (
            "the organizer view is disabled: set ARENA_ORGANIZER_PASSWORD on the server",
            "组织者视图已停用：请在服务器上设置 ARENA_ORGANIZER_PASSWORD",
        ),
        "organizer_wrong_password": ("wrong organizer password", "组织者密码错误"),
        # numbers typed in a form; {what} names the field (what_… below, or another message)
        "number_not_whole": ("{what} must be a whole number, got {value}", "{what}必须是整数，收到的是 {value}"),
        "number_between": (
            "{what} must be between {lo} and {hi}, got {number}",
            "{what}必须在 {lo} 到 {hi} 之间，收到的是 {number}",
        ),
        "number_at_least": ("{what} must be at least {lo}, got {number}", "{what}至少为 {lo}，收到的是 {number}"),
        "number_at_most": ("{what} must be at most {hi}, got {number}", "{what}最多为 {hi}，收到的是 {number}"),
        "what_samples": ("samples per stochastic method", "每种随机方法的样本数"),
        "what_base_seed": ("base seed", "基础种子"),
        "what_attention_items": ("attention items", "注意力检查题数"),
        "what_batch_size": ("batch size", "批大小"),
        "what_rater_name": ("rater name", "评分者名称"),
        "what_builtin_scenarios": ("built-in scenarios", "内置场景"),
        "what_task_prompts": ("task prompts", "任务提示词"),
        "value_enter_first": ("enter a {what} first", "请先输入{what}"),
        "value_too_long": ("the {what} is longer than {limit} characters", "{what}超过了 {limit} 个字符"),
        # creating a study: the form, the prompts, the design
        "organizer_both_sources": (
            "there are pasted prompts and an uploaded file: clear the one you do not want (the pasted box, or the "
            "file with its ×) and press Create again; nothing was generated",
            "既有粘贴的提示词又有上传的文件：请清除不需要的那个（粘贴框，或用文件旁的 × 删除文件），然后再按“创建”；"
            "什么都没有生成",
        ),
        "organizer_paste_prompts": ("paste at least one prompt, one per line", "请至少粘贴一个提示词，每行一个"),
        "organizer_upload_prompts": (
            "upload a .csv, .jsonl or .txt file of prompts",
            "请上传一个提示词文件（.csv、.jsonl 或 .txt）",
        ),
        "organizer_choose_source": ("choose where the prompts come from", "请选择提示词的来源"),
        "organizer_rubric_error": ("the rubric: {error}", "评分问题：{error}"),
        "study_needs_name": ("give the study a name", "请给研究起个名字"),
        "study_name_names_methods": (
            "raters see the study's name; leave method names out of it ({methods})",
            "评分者能看到研究的名称；名称里不要出现方法名（{methods}）",
        ),
        "study_no_prompts": ("the study has no prompts", "这个研究没有提示词"),
        "study_too_many_prompts": (
            "{n} prompts; the limit per study is {limit}",
            "{n} 个提示词；每个研究最多 {limit} 个",
        ),
        "study_settings_unknown": (
            "settings given for methods not in the study: {methods}",
            "给出了不在本研究中的方法的设置：{methods}",
        ),
        "study_pairwise_no_rubric": (
            "a pairwise study asks for one vote per pair: a rubric and attention items are for scores",
            "成对比较研究每对只投一票：评分问题和注意力检查题只用于打分研究",
        ),
        "study_attention_rule_needs_items": (
            'the exclusion rule "attention" needs attention items (add at least one)',
            "排除规则“注意力”需要注意力检查题（请至少添加一道）",
        ),
        "study_design_unknown": (
            "a study is rated by {designs}, not {design}",
            "研究的评分方式是 {designs}，而不是 {design}",
        ),
        "study_pairwise_two_methods": (
            "a pairwise study compares at least two methods",
            "成对比较研究至少要比较两种方法",
        ),
        "study_pairwise_one_sample": (
            "a pairwise study compares methods: one sample per method",
            "成对比较研究比较的是方法：每种方法一个样本",
        ),
        "study_too_many_responses": (
            "{n} responses per item is too many to rate side by side; the limit is {limit} (fewer methods or samples)",
            "每题 {n} 条回答太多，无法并排评分；上限是 {limit}（请减少方法或样本数）",
        ),
        "study_unknown_rule": (
            "unknown exclusion rule {rule} (known: {known})",
            "未知的排除规则 {rule}（可用：{known}）",
        ),
        "study_prompt_error": ("prompt {k}: {error}; nothing was created", "第 {k} 个提示词：{error}；什么都没有创建"),
        "prompts_no_language": (
            "no {what} in language {language}; choose en, zh or all",
            "没有语言为 {language} 的{what}；请选择 en、zh 或 all",
        ),
        "attention_count_range": (
            "attention items: 0 to {most}, not {n}",
            "注意力检查题：0 到 {most} 道，而不是 {n} 道",
        ),
        "attention_too_many": (
            "{n} attention items for {prompts} prompts: at most one per prompt",
            "{prompts} 个提示词配 {n} 道注意力检查题：每个提示词最多一道",
        ),
        "attention_needs_scale": (
            "attention items ask for a score on a scale: this rubric has no scale question",
            "注意力检查题要求在量表上打分：这套评分问题没有量表题",
        ),
        "attention_off_scale": (
            "attention items ask for {value}, which is not on the scale of {questions}",
            "注意力检查题要求打 {value} 分，但它不在 {questions} 的量表上",
        ),
        "attention_instruction": (
            "the attention instruction must say which score to give ({value} is replaced by it)",
            "注意力检查题的说明必须写明要打几分（其中的 {value} 会被替换成该分数）",
        ),
        "guess_choose_target": (
            "choose which method raters are asked to recognise: a method name, 'each' or 'off'",
            "请选择要评分者辨认哪种方法：一个方法名、'each'（每种）或 'off'（不问）",
        ),
        "guess_target_unknown": (
            "raters can only be asked about methods in the study; {unknown} is not among {methods}",
            "只能问评分者本研究中的方法；{unknown} 不在 {methods} 之中",
        ),
        "guess_targets_unknown": (
            "raters can only be asked about methods in the study; {unknown} are not among {methods}",
            "只能问评分者本研究中的方法；{unknown} 不在 {methods} 之中",
        ),
        "guess_target_samples": (
            "{methods} has {n} responses per item, so 'which one came from it' has more than one right answer: ask "
            "about a deterministic method, or use one sample per method",
            "{methods} 每题有 {n} 条回答，“哪条来自它”不止一个正确答案：请问一种确定性方法，或每种方法只用一个样本",
        ),
        "models_unknown": (
            "{model} is not a model this app offers; choose among {names}",
            "{model} 不是本应用提供的模型；请在 {names} 中选择",
        ),
        "models_choose_one": ("choose at least one model", "请至少选择一个模型"),
        "models_unknown_scorer": (
            "{model} is not a model this app offers as the perplexity scorer",
            "{model} 不是本应用提供的困惑度评分模型",
        ),
        "prompt_not_text": ("the prompt must be text", "提示词必须是文本"),
        "prompt_too_long": (
            "the prompt has {n} characters; the limit is {limit}",
            "提示词有 {n} 个字符；上限是 {limit}",
        ),
        "prompt_empty": (
            "the prompt is empty; type a question or a text to continue",
            "提示词是空的；请输入一个问题或一段要续写的文字",
        ),
        "prompt_too_many_tokens": (
            "the prompt is {n} tokens; with max_new_tokens={max_new} this model (context {context}) allows at most "
            "{most} prompt tokens",
            "提示词有 {n} 个 token；在 max_new_tokens={max_new} 时，这个模型（上下文 {context}）最多允许 {most} 个"
            "提示词 token",
        ),
        "file_line_error": ("{file} line {line}: {error}", "{file} 第 {line} 行：{error}"),
        "prompt_raw_value": (
            "{file} line {line}: raw must be true or false (also 1/0, yes/no), not {value}",
            "{file} 第 {line} 行：raw 必须是 true 或 false（也可以是 1/0、yes/no），而不是 {value}",
        ),
        "prompt_record_kind": (
            "{file} line {line}: expected an object with a 'prompt' field or a string",
            "{file} 第 {line} 行：应为带 'prompt' 字段的对象或一个字符串",
        ),
        "prompt_record_no_prompt": ("{file} line {line}: no 'prompt' field", "{file} 第 {line} 行：没有 'prompt' 字段"),
        "prompt_file_kind": (
            "{file}: use a .csv (with a 'prompt' column), .jsonl or .txt file of prompts",
            "{file}：请使用 .csv（带 'prompt' 列）、.jsonl 或 .txt 格式的提示词文件",
        ),
        "prompt_file_nul": ("{file} line {line}: holds a NUL character", "{file} 第 {line} 行：含有 NUL 字符"),
        "prompt_file_no_header": (
            "{file}: the CSV needs a header row with a 'prompt' column",
            "{file}：CSV 需要一个带 'prompt' 列的表头行",
        ),
        "prompt_file_empty": ("{file} holds no prompts", "{file} 里没有提示词"),
        # the rubric box: what a question may be (common/rubric.py, common/questions/)
        "rubric_scale_parse": (
            "scale {scale} does not parse: write it as MIN-MAX, e.g. 1-10",
            "无法解析量表 {scale}：请写成“最小值-最大值”，例如 1-10",
        ),
        "rubric_scale_points": (
            "the scale {low}-{high} has {points} point{points_s}: a scale has {least} to {most} points (1-5, 1-7, "
            "1-10, 0-10...)",
            "量表 {low}-{high} 有 {points} 个分值：量表应有 {least} 到 {most} 个分值（1-5、1-7、1-10、0-10……）",
        ),
        "rubric_scale_points_of": (
            "the scale of {name} {low}-{high} has {points} point{points_s}: a scale has {least} to {most} points "
            "(1-5, 1-7, 1-10, 0-10...)",
            "{name} 的量表 {low}-{high} 有 {points} 个分值：量表应有 {least} 到 {most} 个分值（1-5、1-7、1-10、"
            "0-10……）",
        ),
        "rubric_needs_name": ("a dimension needs a name", "每个问题都需要一个名称"),
        "rubric_name_too_long": (
            "the dimension name {name}... is longer than {n} characters",
            "问题名称 {name}…… 超过了 {n} 个字符",
        ),
        "rubric_name_characters": (
            "the dimension name {name} may not hold a comma, a quote or a control character",
            "问题名称 {name} 不能包含逗号、引号或控制字符",
        ),
        "rubric_name_reserved": (
            "{name} is a column of the ratings file and cannot name a dimension",
            "{name} 是评分文件中的一列，不能用作问题名称",
        ),
        "rubric_anchors_of_scale": (
            "{name} is a {kind} question: anchors belong to a scale",
            "{name} 是{kind}问题：锚点只用于量表",
        ),
        "rubric_labels_of_choice": (
            "{name} is a {kind} question: labels belong to a choice",
            "{name} 是{kind}问题：选项标签只用于单选题",
        ),
        "rubric_scale_no_labels": (
            "{name} is a scale: labels belong to a choice",
            "{name} 是量表：选项标签只用于单选题",
        ),
        "rubric_anchor_off_scale": (
            "an anchor of {name} is for {point}, outside its scale {scale}",
            "{name} 的一个锚点针对 {point} 分，超出了它的量表 {scale}",
        ),
        "rubric_dimension_object": (
            "a dimension is an object with at least a name",
            "每个问题都是一个对象，至少要有名称（name）",
        ),
        "rubric_misplaced": (
            "{name} is a {kind} question: it takes no {fields}",
            "{name} 是{kind}问题：不接受 {fields}",
        ),
        "rubric_misplaced_anchors": (
            "{name} is a {kind} question: it takes no {fields} (anchors belong to a scale)",
            "{name} 是{kind}问题：不接受 {fields}（锚点只用于量表）",
        ),
        "rubric_dimension_count": (
            "a rubric has {least} to {most} dimensions, this one has {n}",
            "一套评分问题应有 {least} 到 {most} 个问题，这一套有 {n} 个",
        ),
        "rubric_no_dimensions": (
            "a rubric has {least} to {most} dimensions, this one has {n}: name at least one question",
            "一套评分问题应有 {least} 到 {most} 个问题，这一套有 {n} 个：请至少写一个问题",
        ),
        "rubric_needs_answer": (
            "a rubric needs at least one question to answer besides a comment",
            "除了评语之外，评分问题至少还要有一个需要作答的问题",
        ),
        "rubric_one_text_question": (
            "a rubric has at most one text question (it is each response's comment box)",
            "评分问题最多只能有一个文本问题（它就是每条回答的评语框）",
        ),
        "rubric_named_twice": ("the dimension {name} is named twice", "问题 {name} 出现了两次"),
        "rubric_unknown_dimension": (
            "unknown dimension {name} (this rubric has {names})",
            "未知的问题 {name}（这套评分问题有 {names}）",
        ),
        "rubric_object": ('a rubric is an object with a list "dimensions"', "评分问题是一个带“dimensions”列表的对象"),
        "rubric_not_json": (
            "the rubric is not valid JSON ({detail})",
            "评分问题不是有效的 JSON（请检查引号、逗号和括号）",
        ),
        "rubric_unknown_type": (
            "unknown question type {name}: use one of {types}",
            "未知的问题类型 {name}：请使用 {types} 之一",
        ),
        "choice_needs_labels": (
            'the choice {name} needs "labels": a list of {least} to {most} texts',
            "单选题 {name} 需要“labels”：一个包含 {least} 到 {most} 个文本的列表",
        ),
        "choice_label_count": (
            "the choice {name} has {n} label(s): a choice has {least} to {most}",
            "单选题 {name} 有 {n} 个选项：单选题应有 {least} 到 {most} 个",
        ),
        "choice_label_length": (
            "a label of {name} is empty or longer than {n} characters",
            "{name} 的某个选项为空或超过了 {n} 个字符",
        ),
        "choice_label_twice": ("the choice {name} names a label twice", "单选题 {name} 有重复的选项"),
        "scale_anchors_object": (
            "the anchors of {name} are an object: point -> text",
            "{name} 的锚点是一个对象：分值 -> 文本",
        ),
        "scale_not_whole": ("the scale of {name} is not made of whole numbers", "{name} 的量表不是由整数构成的"),
        # a question's type inside a sentence ("'quality' is a choice question: …")
        "word_scale": ("scale", "量表"),
        "word_yes_no": ("yes-no", "是非"),
        "word_choice": ("choice", "单选"),
        "word_text": ("text", "文本"),
        "word_draft_or_closed": ("draft or closed", "草稿或已关闭"),
        # the rubric box's preview (ui/organizer/forms.py)
        "rubric_preview_error": ("**error:** {error}", "**错误：** {error}"),
        "rubric_preview_head": (
            "| question | scale | what to judge | anchors |",
            "| 问题 | 量表 | 评什么 | 锚点 |",
        ),
        "rubric_preview_points": (" ({n} points)", "（{n} 个分值）"),
        "rubric_kind_choice": ("one of {n}", "{n} 选一"),
        "rubric_kind_comment": ("comment", "评语"),
        # after Create and Resume: the generation's report, the form check and the replay check
        "organizer_created": ("Study #{id} created: {report}", "研究 #{id} 已创建：{report}"),
        "organizer_resumed": ("Study #{id}: {report}", "研究 #{id}：{report}"),
        "organizer_finished": ("**Finished:** {line}", "**已完成：** {line}"),
        "organizer_form_check_head": ("**Form check** (before inviting raters):", "**形式检查**（邀请评分者之前）："),
        "organizer_replay_check_head": (
            "**Replay check** (can a rater reproduce a response at home?):",
            "**重放检查**（评分者能否在自己的电脑上复现某条回答？）：",
        ),
        "organizer_replay_progress": (
            "Replay check: running a few items again with fresh seeds",
            "重放检查：用新的种子把几道题再运行一遍",
        ),
        "organizer_generating": ("Generating: {what} · {eta}", "正在生成：{what} · {eta}"),
        # what the progress bar names as each piece of generation ends (arena/engines/, arena/studies/generate.py)
        "engine_piece": ("item {item}, {method} sample {sample}", "第 {item} 题，{method} 样本 {sample}"),
        "engine_batch": ("{method} sample {sample}: a batch of {n}", "{method} 样本 {sample}：一批 {n} 条"),
        "engine_piece_vllm": (
            "item {item}, {method} sample {sample} ({n} in flight on the vLLM server)",
            "第 {item} 题，{method} 样本 {sample}（vLLM 服务器上有 {n} 条在生成）",
        ),
        "generation_starting": ("starting", "开始"),
        "generation_done": ("done", "完成"),
        "generation_stored": (
            "{done} of {total} outputs stored ({generated} generated now).",
            "已存储 {done} / {total} 条输出（本次生成 {generated} 条）。",
        ),
        "generation_stored_short": ("{done} of {total} outputs stored.", "已存储 {done} / {total} 条输出。"),
        "generation_opened": (
            " The study is now open for rating: invite raters.",
            "研究现已开放评分：请邀请评分者。",
        ),
        "generation_identical": (
            " Warning: on item {number}, {methods} wrote identical text.",
            "警告：在第 {number} 题上，{methods} 写出了完全相同的文本。",
        ),
        "eta_outputs": ("{done} of {total} outputs", "{done} / {total} 条输出"),
        "eta_took": (" · took {duration}", " · 用时 {duration}"),
        "eta_rate": (" at {speed} tokens/s", "，速度 {speed} token/秒"),
        "eta_unmeasured": (
            " · time left: measured once the first output is done",
            " · 剩余时间：第一条输出完成后开始测量",
        ),
        "eta_prior": (
            " · about {duration} left (from earlier Compare runs; measured soon)",
            " · 约剩 {duration}（根据之前的对比运行估计；很快会实测）",
        ),
        "eta_measured": (
            " · about {duration} left ({speed} tokens/s measured on this run so far)",
            " · 约剩 {duration}（本次运行目前实测 {speed} token/秒）",
        ),
        "study_generating_already": (
            "this study is being generated already; wait for that run to finish",
            "这个研究已经在生成中；请等那次运行结束",
        ),
        "study_imported_cannot_open": (
            "study #{id} was imported from {file}: its ratings were collected outside this app, so it cannot be "
            "opened for rating here (publish it to show its results)",
            "研究 #{id} 导入自 {file}：它的评分是在本应用之外收集的，因此不能在这里开放评分（发布它即可展示结果）",
        ),
        "study_imported_nothing_to_generate": (
            "study #{id} was imported from {file}: it has nothing to generate",
            "研究 #{id} 导入自 {file}：没有需要生成的内容",
        ),
        "study_outputs_missing": (
            "{n} outputs are still missing; generate them first",
            "还缺 {n} 条输出；请先生成它们",
        ),
        "study_state_from": (
            "study #{id} is {state}; it can become {target} only from {allowed}",
            "研究 #{id} 当前是“{state}”状态；只有从“{allowed}”状态才能变为“{target}”",
        ),
        # the form check (evaluation/form_cues.py)
        "form_too_few": (
            "{method}: too few items to check (the check needs {n} or more).",
            "{method}：题目太少，无法检查（至少需要 {n} 道）。",
        ),
        "form_recognisable": (
            "{method}: a classifier that sees only the form picked it out in {correct} of {items} items (chance "
            "{chance}%, p = {p}): recognisable from its form ({cue}). Remedy: {remedy}.",
            "{method}：一个只看形式的分类器在 {items} 道题中认出了它 {correct} 次（随机水平 {chance}%，p = {p}）："
            "仅凭形式就能认出（{cue}）。补救：{remedy}。",
        ),
        "form_not_recognisable": (
            "{method}: a classifier that sees only the form picked it out in {correct} of {items} items (chance "
            "{chance}%, p = {p}): not recognisable from its form alone.",
            "{method}：一个只看形式的分类器在 {items} 道题中认出了它 {correct} 次（随机水平 {chance}%，p = {p}）："
            "仅凭形式认不出来。",
        ),
        "form_cue_stopped": (
            "{method} stopped by itself in {own} of {own_n} responses, the others in {others} of {others_n}",
            "{method} 在 {own_n} 条回答中有 {own} 条自行结束，其他方法在 {others_n} 条中有 {others} 条",
        ),
        "form_cue_sentence_end": (
            "{method} ended at a sentence end in {own} of {own_n} responses, the others in {others} of {others_n}",
            "{method} 在 {own_n} 条回答中有 {own} 条在句末结束，其他方法在 {others_n} 条中有 {others} 条",
        ),
        "form_cue_loop": (
            "{method} looped in {own} of {own_n} responses, the others in {others} of {others_n}",
            "{method} 在 {own_n} 条回答中有 {own} 条陷入循环，其他方法在 {others_n} 条中有 {others} 条",
        ),
        "form_cue_differs": (
            "{method} differs by {what}: {own} on average, the others {others}",
            "{method} 的不同在于{what}：平均 {own}，其他方法 {others}",
        ),
        "form_describe_tokens": ("its length in tokens", "以 token 计的长度"),
        "form_describe_characters": ("its length in characters", "以字符计的长度"),
        "form_describe_stopped": (
            "whether it stops by itself before max tokens",
            "是否在达到最大 token 数之前自行结束",
        ),
        "form_describe_sentence_end": ("whether it ends at the end of a sentence", "是否在句末结束"),
        "form_describe_loop": ("whether it loops (a phrase repeated back to back)", "是否陷入循环（同一短语接连重复）"),
        "form_describe_repeated_3grams": ("how much it repeats itself", "自我重复的程度"),
        "form_describe_distinct_1": ("how varied its words are", "用词的多样性"),
        "form_describe_distinct_2": ("how varied its word pairs are", "词对的多样性"),
        "form_remedy_length": (
            "give every method the same max tokens, and trim every response of an item to a common length (e.g. the "
            "shortest one's, at a sentence end)",
            "给每种方法相同的最大 token 数，并把同一题的每条回答截到相同的长度（例如最短那条的长度，在句末截断）",
        ),
        "form_remedy_stopped": (
            "let no response visibly stop early: raise max tokens until every method stops by itself, or cut every "
            "response at the same length so that all run to the cut-off",
            "不要让任何回答明显提前结束：提高最大 token 数，直到每种方法都自行结束；或把每条回答截到相同长度，"
            "让所有回答都写到截断处",
        ),
        "form_remedy_sentence_end": (
            "trim every response at its last sentence end, so that none ends mid-sentence while others do not",
            "把每条回答截到它最后一个句末，免得有的在句中结束而其他的不是",
        ),
        "form_remedy_loop": (
            "control repetition the same way for every method (repetition penalty or n-gram blocking), or drop the "
            "items where one method loops",
            "对每种方法用同样的方式控制重复（重复惩罚或 n-gram 屏蔽），或去掉某种方法陷入循环的题目",
        ),
        "form_remedy_repeats": (
            "control repetition the same way for every method (repetition penalty or n-gram blocking)",
            "对每种方法用同样的方式控制重复（重复惩罚或 n-gram 屏蔽）",
        ),
        "form_remedy_diversity": (
            "compare methods of similar diversity, or say in the guidelines that style differs on purpose",
            "比较多样性相近的方法，或在评分指南中说明风格的差异是有意的",
        ),
        "form_check_no_outputs": ("The study has no outputs yet.", "这个研究还没有输出。"),
        "form_check_started": (
            "raters have started rating this study: the form check describes each method's responses, so it is "
            "shown before the first rating and again once the study is closed",
            "评分者已经开始为这个研究评分：形式检查描述了每种方法的回答，因此只在第一次评分之前和研究关闭之后显示",
        ),
        # the replay check (evaluation/replay_check.py)
        "replay_public_model": ("the public model", "公开的模型"),
        "replay_study_model": ("the study's model (if raters can get it)", "本研究的模型（如果评分者能拿到它）"),
        "replay_not_checked": (
            "{method}: not checked (no stored output on the checked items)",
            "{method}：未检查（所查题目上没有已存储的输出）",
        ),
        "replay_replayable": (
            "{method}: REPLAYABLE: {identical} of {checked} outputs came back word for word from {where} with another "
            "seed; a rater who runs the prompt at home recognises it",
            "{method}：可复现：用另一个种子运行{where}，{checked} 条输出中有 {identical} 条逐字相同；"
            "在自己电脑上运行这个提示词的评分者能认出它",
        ),
        "replay_private": (
            "{method}: {identical} of {checked} outputs came back identical with another seed (the secret seed keeps "
            "the exact text private)",
            "{method}：用另一个种子运行，{checked} 条输出中有 {identical} 条完全相同（保密的种子让确切的文本不外泄）",
        ),
        "replay_what_to_do": ("What to do: {remedies}.", "怎么办：{remedies}。"),
        "replay_or": ("; or ", "；或者"),
        "replay_remedy_model": (
            "use a model the raters cannot run (not a public or embedded one)",
            "使用评分者无法运行的模型（不要用公开的或内置的模型）",
        ),
        "replay_remedy_rating_only": (
            "serve the study from a rating-only deployment (ARENA_MODE=rating: no Compare, no model for the public)",
            "用仅评分的部署提供这个研究（ARENA_MODE=rating：没有对比页，不向公众开放模型）",
        ),
        "replay_remedy_ask": (
            "ask the blinding question (Measure the blind) and report the blinding index with the results",
            "询问盲法问题（测量盲法），并随结果一起报告盲法指数",
        ),
        "replay_remedy_leave_out": (
            "leave the deterministic methods out, or say in the report that raters could have recognised them",
            "去掉确定性方法，或在报告中说明评分者可能认出了它们",
        ),
        # invites, accounts, exports, imports, deletions
        "organizer_copy_link": ("Copy link", "复制链接"),
        "organizer_copied": ("Copied", "已复制"),
        "organizer_copy_link_of": ("Copy the invite link of {rater}", "复制 {rater} 的邀请链接"),
        "invite_name_one": ("name at least one rater to invite", "请至少写一位要邀请的评分者"),
        "invite_account_prefix": (
            "a rater name starting with {prefix} belongs to a Hugging Face account",
            "以 {prefix} 开头的评分者名称属于 Hugging Face 账号",
        ),
        "invite_named_twice": ("the same rater is named twice", "同一位评分者写了两次"),
        "accounts_saved": (
            "Study #{id}: {n} account(s) or organisation(s) may take a seat by signing in (on their first visit).",
            "研究 #{id}：{n} 个账号或组织可以通过登录获得席位（在首次访问时）。",
        ),
        "accounts_saved_anyone": (
            "Study #{id}: anyone signed in with Hugging Face may take a seat by signing in (on their first visit).",
            "研究 #{id}：任何用 Hugging Face 登录的人都可以通过登录获得席位（在首次访问时）。",
        ),
        "accounts_saved_none": (
            "Study #{id}: no Hugging Face account may sign in; invite codes only.",
            "研究 #{id}：不允许任何 Hugging Face 账号登录；只能用邀请码。",
        ),
        "accounts_not_text": ("the list of Hugging Face accounts must be text", "Hugging Face 账号列表必须是文本"),
        "accounts_too_many": (
            "at most {n} Hugging Face accounts or organisations in one list",
            "一个列表中最多 {n} 个 Hugging Face 账号或组织",
        ),
        "accounts_bad_name": (
            "{entry} is not a Hugging Face username or organisation (letters, digits, - _ .)",
            "{entry} 不是 Hugging Face 用户名或组织名（只能用字母、数字和 - _ .）",
        ),
        "accounts_pseudonym_prefix": (
            "a pseudonym cannot start with {prefix}: that is an account's own name",
            "化名不能以 {prefix} 开头：那是账号自己的名称",
        ),
        "accounts_pseudonym_twice": ("the pseudonym {name} is given twice", "化名 {name} 用了两次"),
        "votes_not_pairwise": (
            "study #{id} scores responses 1-5; only a pairwise study has votes",
            "研究 #{id} 是给回答打 1-5 分；只有成对比较研究才有投票",
        ),
        "votes_not_closed": (
            "a study's votes say which method stood on which side: they are exported once it is closed",
            "研究的投票会透露哪种方法在哪一边：研究关闭后才能导出",
        ),
        "organizer_upload_first": ("upload an export file first", "请先上传导出文件"),
        "export_file_kind": (
            "{file}: use a .csv or .jsonl file name (or give --format)",
            "{file}：请使用 .csv 或 .jsonl 文件名（或用 --format 指定格式）",
        ),
        "import_not_export": (
            "{file} is not an arena export: missing columns {columns}",
            "{file} 不是本应用的导出文件：缺少这些列 {columns}",
        ),
        "import_not_export_row": (
            "{file} line {line} is not an arena export row",
            "{file} 第 {line} 行不是本应用导出文件的行",
        ),
        "import_unreadable": ("{column} has an unreadable value {value}", "{column} 的值 {value} 无法读取"),
        "import_state": ("study_state must be one of {states}", "study_state 必须是 {states} 之一"),
        "import_row_kind": (
            "row_kind must be one of {kinds}, got {kind}",
            "row_kind 必须是 {kinds} 之一，收到的是 {kind}",
        ),
        "import_design": ("study_design must be one of {designs}", "study_design 必须是 {designs} 之一"),
        "import_blind": (
            "this file was written blind (its study was still open: no method, seed or settings per rating); export "
            "it again after closing the study to get a file that imports",
            "这个文件是在盲态下写出的（它的研究当时仍在评分：每条评分都没有方法、种子和设置）；请在关闭研究后重新导出，"
            "得到一个可以导入的文件",
        ),
        "import_empty": ("{column} is empty", "{column} 是空的"),
        "delete_confirm_name": (
            "to confirm, type the study's exact name ({name}); nothing was deleted",
            "请输入研究的确切名称（{name}）以确认；什么都没有删除",
        ),
        "delete_generating": (
            "this study is being generated right now; wait for that run to end, then delete it",
            "这个研究正在生成中；请等那次运行结束后再删除",
        ),
        "delete_copy_failed": (
            "could not write the copy to take before deleting ({error}); nothing was deleted",
            "删除前无法写出副本（{error}）；什么都没有删除",
        ),
        "delete_enter_rater": (
            "enter the rater's name exactly as the progress table shows it",
            "请按进度表中显示的样子准确输入评分者的名称",
        ),
        "delete_no_rater": (
            "there is no rater {name}; nothing was deleted",
            "没有名为 {name} 的评分者；什么都没有删除",
        ),
        "delete_rater_no_ratings": (
            "{name} has no ratings in study #{id}; nothing was deleted",
            "{name} 在研究 #{id} 中没有评分；什么都没有删除",
        ),
        "deleted_rater": (
            "Deleted {n} rating{n_s} by {rater} in study #{id}.",
            "已删除 {rater} 在研究 #{id} 中的 {n} 条评分。",
        ),
        "deleted_rater_copy": (
            " Their ratings were exported first (download below; Import puts them back).",
            "删除前已导出这些评分（可在下方下载；用“导入”即可恢复）。",
        ),
        "deleted_study": (
            "Deleted study #{id} {name}: {items} items, {outputs} outputs, {ratings} ratings, {positions} recorded "
            "display positions, {raters} raters' places in it.",
            "已删除研究 #{id} {name}：{items} 道题、{outputs} 条输出、{ratings} 条评分、{positions} 条展示位置记录、"
            "{raters} 位评分者在其中的席位。",
        ),
        "deleted_study_copy": (
            " The study was exported first (download below: the ratings export, which Import takes back, and every "
            "item and output as CSV).",
            "删除前已导出该研究（可在下方下载：评分导出文件，可用“导入”恢复；以及所有题目和输出的 CSV）。",
        ),
        "deleted_kept": (" A copy is also kept on the server in `{path}`.", "服务器上的 `{path}` 中也保留了一份副本。"),
        "organizer_deleted_blind": (
            "{head} It was copied first, but the study was still open, so the copy (which names each rating's "
            "method) is not offered for download: it is kept on the server in `{where}`.",
            "{head}删除前已复制，但研究当时仍在评分，所以副本（其中写明了每条评分的方法）不提供下载："
            "它保存在服务器上的 `{where}` 中。",
        ),
        # the diagnostics (ui/organizer/stats.py, evaluation/human/raters.py and quality.py)
        "diagnostics_no_ratings": ("Study #{id} has no ratings yet.", "研究 #{id} 还没有评分。"),
        "diagnostics_note": (
            "Seconds per item: gaps between a rater's consecutive Submit times (first item and breaks over 30 min not "
            "counted). Leave-one-out α: the others' agreement without this rater; a negative change means the rest "
            "agree better without them.",
            "每题秒数：评分者相邻两次提交之间的间隔（不计第一题和超过 30 分钟的休息）。留一 α：去掉该评分者后其他人的"
            "一致性；变化为负表示没有这位评分者时其余的人更一致。",
        ),
        "rater_line": ("{rater}: {notes}.", "{rater}：{notes}。"),
        "rater_none_stands_out": (
            "No rater stands out (no straight-lining, no rater lowers agreement by more than 0.05, no item under "
            "10 s).",
            "没有评分者显得异常（没有直线作答，没有评分者使一致性降低超过 0.05，没有题目用时少于 10 秒）。",
        ),
        "rater_note_flat": ("straight-lining: flat on {patterns}", "直线作答：在{patterns}上分数不变"),
        "rater_note_agreement": (
            "agreement rises without them on {changes}",
            "去掉该评分者后，{changes}上的一致性提高",
        ),
        "rater_note_seconds": ("a median of {seconds} s per item", "每题用时中位数 {seconds} 秒"),
        "flat_across": ("across questions", "跨问题"),
        "flat_across_words": (
            "the same score on every question of a response, response after response",
            "一条接一条地给每条回答的每个问题打相同的分",
        ),
        "flat_question_words": (
            "the same score on every response of an item on {question}",
            "在“{question}”上给同一题的每条回答打相同的分",
        ),
        "flat_share": (" ({share} of their items on the flattest question)", "（在最平的问题上占其题目的 {share}）"),
        "flag_attention": ("failed an attention item", "没有通过一道注意力检查题"),
        "flag_straight_lining": ("straight-lining: {how}", "直线作答：{how}"),
        "flag_speeder": (
            "too fast to have read the responses: a median of {seconds} s per item",
            "太快，不可能读完回答：每题用时中位数 {seconds} 秒",
        ),
        "flag_speeder_share": (", {share} of the time needed to skim them", "，只有浏览这些回答所需时间的 {share}"),
        "flag_against": (
            "ranked the responses against the other raters' consensus (p = {p} over {n} items)",
            "对回答的排序与其他评分者的共识相反（{n} 道题，p = {p}）",
        ),
        "flag_unrelated": (
            "scores unrelated to the responses: they do not follow the other raters' over {cells} scores (p = {p}) "
            "while the others follow each other",
            "打分与回答无关：在 {cells} 个分数上与其他评分者的打分不一致（p = {p}），而其他评分者彼此一致",
        ),
        "flag_nothing": ("{rater}: nothing stands out.", "{rater}：没有异常。"),
        "quality_flags_head": (
            "Rater flags (never applied by themselves): {rule}",
            "评分者标记（不会自动生效）：{rule}",
        ),
        "quality_rule_set": (
            "The rule set at creation excludes raters who {rules}: Results shows the analysis with and without them.",
            "创建时设定的规则排除这样的评分者：{rules}。结果页会展示包含和不包含他们的分析。",
        ),
        "quality_no_rule": (
            "No exclusion rule was set at creation: these flags exclude nobody.",
            "创建时没有设定排除规则：这些标记不会排除任何人。",
        ),
        "quality_others_calm": ("{n} other rater{n_s}: nothing stands out.", "其他 {n} 位评分者：没有异常。"),
        "quality_none_flagged": ("None of the {n} raters is flagged.", "{n} 位评分者都没有被标记。"),
        # the diagnostics' tables: column names and a fixed cell
        "diag_col_median_s_per_item": ("median_s_per_item", "每题中位秒数"),
        "diag_col_distinct_scores": ("distinct_scores", "不同分值数"),
        "diag_col_flat_items_share": ("flat_items_share", "分数不变的题目占比"),
        "diag_col_flat_on": ("flat_on", "分数不变的问题"),
        "diag_col_flat_p": ("flat_p", "直线作答 p"),
        "diag_col_straight_lining": ("straight_lining", "直线作答"),
        "diag_col_alpha_without": ("alpha_without_{dimension}", "去掉该评分者后的 α（{dimension}）"),
        "diag_col_alpha_change": ("alpha_change_{dimension}", "α 的变化（{dimension}）"),
        "stat_col_diff": ("diff", "差值"),
        "stat_col_ci_low_raw": ("ci_low", "CI 下限"),
        "stat_col_ci_high_raw": ("ci_high", "CI 上限"),
        "stat_col_p_value": ("p_value", "p 值"),
        "stat_col_n_items": ("n_items", "题数"),
        "stat_last_shown": ("last shown", "最后展示的"),
        # the blinding index's table (evaluation/blinding.py RESULT_COLUMNS)
        "blind_col_target_method": ("target_method", "被辨认的方法"),
        "blind_col_index": ("index", "盲法指数"),
        "blind_col_n": ("n", "回答数"),
        "blind_col_correct": ("correct", "认对的次数"),
        "blind_col_dont_know": ("dont_know", "“不知道”的次数"),
        "blind_col_chance": ("chance", "随机水平"),
        "blind_col_pooled_index": ("pooled_index", "合并的指数（Bang）"),
        "blind_col_max_answers": ("max_answers_per_item", "每题最多回答数"),
        "blinding_no_answers": ("No rater answered the question yet.", "还没有评分者回答这个问题。"),
        "blinding_not_closed": (
            "the blinding index is shown once the study is closed (raters are never told while it is open)",
            "研究关闭后才显示盲法指数（评分进行期间绝不告诉评分者）",
        ),
        "blinding_not_asked": (
            "this study did not ask raters which response came from which method",
            "这个研究没有问评分者哪条回答来自哪种方法",
        ),
        # the power planner (ui/organizer/stats.py, evaluation/human/design.py)
        "planner_whole_numbers": (
            "{what}: whole numbers separated by commas, e.g. 8, 16, 32",
            "{what}：用逗号分隔的整数，例如 8, 16, 32",
        ),
        "planner_between": ("{what}: between {low} and {high}", "{what}：在 {low} 到 {high} 之间"),
        "planner_not_a_number": ("{what} must be a number", "{what}必须是数字"),
        "planner_number_between": ("{what} must be between {low} and {high}", "{what}必须在 {low} 到 {high} 之间"),
        "planner_what_sims": ("simulated studies per design", "每种设计模拟的研究数"),
        "planner_too_many_cells": (
            "at most {n} items × raters combinations at once",
            "一次最多 {n} 种题数 × 评分者数的组合",
        ),
        "planner_too_large": (
            "that grid is too large to simulate here: fewer simulated studies, items or raters",
            "这个网格太大，无法在这里模拟：请减少模拟研究数、题数或评分者数",
        ),
        "planner_choose_dimension": ("choose a dimension", "请选择一个问题"),
        "planner_no_question": (
            "pilot study #{id} has no question {question}: choose one of its own",
            "预实验研究 #{id} 没有问题 {question}：请选择它自己的问题",
        ),
        "planner_pilot_error": ("pilot study #{id}: {error}", "预实验研究 #{id}：{error}"),
        "planner_default_sds": ("default SDs", "默认标准差"),
        "planner_pilot_sds": ("SDs from pilot study #{id}", "来自预实验研究 #{id} 的标准差"),
        "planner_raters_column": ("{n} rater{n_s}", "{n} 位评分者"),
        "planner_sentence": (
            "{line}\n\n{source}: {sds} (mean {mean}); {n} simulated studies per design, every rater rates every "
            "item; Δ is on the latent 1–5 scale (rounding and the ends of the scale shrink it a little).",
            "{line}\n\n{source}：{sds}（均值 {mean}）；每种设计模拟 {n} 个研究，每位评分者为每道题评分；Δ 是在潜在的 "
            "1–5 量表上（取整和量表两端会让它略微缩小）。",
        ),
        "sd_resid": ("resid", "残差"),
        "sd_rater_method": ("rater_method", "评分者×方法"),
        "power_how": (
            "the primary analysis: items and raters as samples, every pair × 3 dimensions adjusted together, "
            "α = {alpha}",
            "主分析：题目和评分者都视为样本，所有方法对 × 3 个问题一起校正，α = {alpha}",
        ),
        "power_none": (
            "No design in the grid reaches {target} power for Δ = {delta}; the best is {items} items × {raters} "
            "raters ({power}). Add items: they help more than raters.",
            "网格中没有哪种设计在 Δ = {delta} 时达到 {target} 的检验力；最好的是 {items} 道题 × {raters} 位评分者"
            "（{power}）。请增加题目：它们比评分者更有帮助。",
        ),
        "power_best": (
            "{items} items × {n} rater{n_s} ({ratings} ratings with {methods} methods) give {power} power to detect "
            "Δ = {delta} between two methods ({how}), by simulation.",
            "{items} 道题 × {n} 位评分者（{methods} 种方法共 {ratings} 条评分）在两种方法之间检出 Δ = {delta} 的"
            "检验力为 {power}（{how}），由模拟得出。",
        ),
        "power_few_raters": (
            " With {n} rater{n_s} the result holds for those raters only.",
            "只有 {n} 位评分者时，结果只对这些评分者成立。",
        ),
    }
)

MESSAGES: dict[str, tuple[str, str]] = {**PAGE, **LINES}
_BY_ENGLISH = {en: key for key, (en, _) in MESSAGES.items()}


def english(key: str) -> str:
    """The English of message `key` (a KeyError names an id that is not in the table)."""
    return MESSAGES[key][0]


def text(key: str, lang: str = "en", **values: Any) -> str:
    """Message `key` in `lang` ("zh", else English), with `values` filled in. Every whole-number value
    `n` also fills `{n_s}`, its English plural ending ("s", "" for 1; "" in Chinese): "1 prompt{items_s}"."""
    en, zh = MESSAGES[key]
    template = zh if lang == "zh" else en
    if not values:
        return template
    # numpy's integers count too (they have __index__; floats do not)
    endings = {
        f"{k}_s": plural(int(v), lang) for k, v in values.items() if hasattr(v, "__index__") and not isinstance(v, bool)
    }
    return template.format(**{**endings, **values})


def plural(n: int, lang: str = "en") -> str:
    """The English plural ending for `n` things ("s", or "" for exactly 1); Chinese has none."""
    return "s" if lang != "zh" and n != 1 else ""


def dimension_name(name: str, lang: str = "en") -> str:
    """A rubric question's name in `lang`: the default rubric's three by the table (连贯性…), any other
    as its organizer wrote it."""
    key = f"dimension_name_{name}"
    return text(key, lang) if key in LINES else str(name)


def key_of(english_text: str) -> str | None:
    """The id of the message whose English is `english_text`, else None: how a fixed sentence that a lower
    layer wrote (a refusal from arena/) finds its translation."""
    return _BY_ENGLISH.get(english_text)


MIN_LITERAL = 8  # characters of fixed text a template needs before a sentence is read as filled from it


def _pattern(english_text: str) -> tuple[int, re.Pattern[str]] | None:
    """(characters of fixed text, the regex a sentence filled from `english_text` matches); None for a
    template with a format spec or no field."""
    parts = list(string.Formatter().parse(english_text))
    if any(spec or conv for _, name, spec, conv in parts if name) or not any(name for _, name, _, _ in parts):
        return None
    seen: set[str] = set()
    regex = ""
    for lit, name, _, _ in parts:
        regex += re.escape(lit)
        if not name:
            continue
        if name in seen:
            regex += f"(?P={name})"
        else:
            regex += f"(?P<{name}>s?)" if name.endswith("_s") else f"(?P<{name}>.+?)"
            seen.add(name)
    return len("".join(lit for lit, _, _, _ in parts)), re.compile(regex, re.S)


@cache
def _patterns_with_fixed() -> tuple[tuple[int, str, re.Pattern[str]], ...]:
    """(characters of fixed text, id, regex) per LINES template with plain fields (no format spec) and at
    least MIN_LITERAL fixed characters, the most fixed text first."""
    found = []
    for key, (en, _) in LINES.items():
        made = _pattern(en)
        if made is not None and made[0] >= MIN_LITERAL:
            found.append((made[0], key, made[1]))
    return tuple(sorted(found, key=lambda f: -f[0]))


def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """A regex per LINES template with plain fields (no format spec), the most fixed text first."""
    return tuple((key, pattern) for _, key, pattern in _patterns_with_fixed())


def parse(sentence: str, keys: tuple[str, ...] = ()) -> tuple[str, dict[str, str]] | None:
    """(message id, values) of a sentence written from a LINES template in English, else None: how a
    line a lower layer filled in ("You have judged all 3 items…") is found for its translation. `keys`:
    only these templates, however little fixed text they have (a caller that knows where a cell came
    from: "{done} of {n}" in the organizer's "items done" column)."""
    patterns = _patterns() if not keys else [(k, made[1]) for k in keys if (made := _pattern(english(k)))]
    for key, pattern in patterns:
        match = pattern.fullmatch(sentence)
        if match:
            return key, {k: v for k, v in match.groupdict().items() if not k.endswith("_s")}
    return None


# Fields that hold another message of the table, not a name: a refusal inside a refusal ("the rubric:
# {error}"), the words for what a number is for ("{what} must be a whole number"). `translated` finds their
# values in the table too; any other value stays as written (a name, a number), but for a `word_` message.
NESTED = frozenset({"error", "what"})


def translated(sentence: str, lang: str) -> str:
    """A sentence a lower layer wrote in English from this table (a refusal, a warning), in `lang`: found by
    its English, whole or filled in from one of its templates (the values kept, a NESTED one and a `word_`
    one translated as well); else as it is."""
    if lang != "zh":
        return sentence
    _, key, values = reading(sentence)
    if key is None:
        return sentence
    return text(key, lang, **{name: value_in(name, v, lang) for name, v in values.items()})


def reading(sentence: str) -> tuple[int, str | None, dict[str, str]]:
    """The best reading of `sentence` as this table's English: (fixed characters it explains, message id,
    values), (0, None, {}) for none. Of the templates it fills, the one that explains the most fixed text
    counts, a NESTED value's own reading included: "the rubric: 'x' is a column…" is the rubric's refusal
    around the column's, not the column's with "the rubric: 'x'" as its name."""
    key = key_of(sentence)
    if key is not None:
        return len(sentence), key, {}
    best: tuple[int, str | None, dict[str, str]] = (0, None, {})
    for fixed, key, pattern in _patterns_with_fixed():
        match = pattern.fullmatch(sentence)
        if not match:
            continue
        values = {k: v for k, v in match.groupdict().items() if not k.endswith("_s")}
        explained = fixed + sum(reading(v)[0] for k, v in values.items() if k in NESTED)
        if explained > best[0]:
            best = (explained, key, values)
    return best


def value_in(field: str, value: str, lang: str) -> str:
    """A value parsed out of a sentence (`parse`), in `lang`: a NESTED field's as a sentence of its own, a
    `word_` message's (a study's state) as its word; any other as it is (a name, a number, a code)."""
    if field in NESTED:
        return translated(value, lang)
    if field == "dimension":  # a question's name: the default rubric's three have theirs
        return dimension_name(value, lang)
    key = key_of(value)
    return text(key, lang) if key is not None and key.startswith("word_") else value
